// The dialect drivers are optional peer dependencies. Whether a failed import is the driver
// itself missing, as this package's own imports see it (its location's node_modules): the
// CLI's exit 8 and the proxy's WARN both say what to install on that failure alone, not on a
// file missing inside an installed driver that declares its entry points (`exports`). A driver
// without them whose `main` file is missing (better-sqlite3's layout) resolves as absent, as it
// always did.
import { createRequire } from 'node:module';

export const DRIVER_DIALECT = { pg: 'PostgreSQL', 'better-sqlite3': 'SQLite' } as const;
export type DriverName = keyof typeof DRIVER_DIALECT;

/** `err`, thrown by an import, says that the package `name` itself cannot be found from here. */
export function isMissingPackage(err: unknown, name: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && !isInstalled(name);
}

/**
 * Resolved as the failed import resolved it, ESM's way: CommonJS's resolver also searches
 * NODE_PATH, which `import` never does, so a driver found only there (a global install) passed
 * for installed and its user got the loader's error instead of what to install (review of
 * 2026-12-07).
 */
function isInstalled(name: string): boolean {
  try {
    // import.meta.resolve is Node 20.6+; before it (engines: >=20) CommonJS's resolver, NODE_PATH and all.
    if (typeof import.meta.resolve === 'function') import.meta.resolve(name);
    else createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}
