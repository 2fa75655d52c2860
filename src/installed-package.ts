// Whether an optional peer dependency (a dialect's driver) resolves from this package's own
// location, as its imports see it: the CLI's and the proxy's "not installed" lines ask this
// before blaming the driver for a module that could not be found.
import { createRequire } from 'node:module';

export function isInstalled(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}
