// The store's driver is an optional peer dependency, and `npx subagent-context proxy` installs
// none: the writer's open then failed with the module loader's own words (`Cannot find package
// 'better-sqlite3' imported from …/_npx/…`), in a WARN an editor hides. This turns that one
// failure into what to install, and how with npx (the proxy's usual launcher). Anything else
// (a broken install, a missing file inside the driver) keeps its own message.
import { isInstalled } from '../installed-package.js';

const DIALECT = { 'better-sqlite3': 'SQLite', pg: 'PostgreSQL' } as const;

/** Opens the store through `open`; a driver that is not installed fails with a line saying what to install. */
export async function withDriver<T>(driver: keyof typeof DIALECT, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && !isInstalled(driver))
      throw new Error(
        `the ${DIALECT[driver]} driver is not installed: npm install ${driver} beside subagent-context, or with npx: npx -p subagent-context -p ${driver} subagent-context proxy …`,
        { cause: err },
      );
    throw err;
  }
}
