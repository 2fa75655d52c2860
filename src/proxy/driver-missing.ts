// The store's driver is an optional peer dependency, and `npx subagent-context proxy` installs
// none: the writer's open then failed with the module loader's own words (`Cannot find package
// 'better-sqlite3' imported from …/_npx/…`), in a WARN an editor hides. This turns that one
// failure into what to install, and how with npx (the proxy's usual launcher). Anything else
// (a broken install, a missing file inside the driver) keeps its own message.
import { DRIVER_DIALECT, isMissingPackage, type DriverName } from '../installed-package.js';

/** Opens the store through `open`; a driver that is not installed fails with a line saying what to install. */
export async function withDriver<T>(driver: DriverName, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (isMissingPackage(err, driver))
      throw new Error(
        `the ${DRIVER_DIALECT[driver]} driver is not installed: npm install ${driver} beside subagent-context, or with npx: npx -p subagent-context -p ${driver} subagent-context proxy …`,
        { cause: err },
      );
    throw err;
  }
}
