// The dialect drivers are optional peer dependencies: a SQLite host has no `pg`, a PostgreSQL
// host no `better-sqlite3`. So the CLI imports a driver (and every module that imports one)
// only once its dialect is chosen, through loadDriver(), which turns "the driver is not
// installed" into one line saying what to install, with its own exit status.
import { DRIVER_DIALECT, isMissingPackage, type DriverName } from '../installed-package.js';
import { CliError } from './cli-error.js';
import { EXIT } from './exit-codes.js';

function driverMissing(name: string, hint: string, cause: unknown): CliError {
  const dialect = (DRIVER_DIALECT as Record<string, string>)[name] ?? name;
  // Run through npx (npm sets npm_command=exec), `npm install` in the folder would not reach the
  // package npx installed: npx must be told to install the driver beside it.
  const npx = process.env.npm_command === 'exec' ? ` (with npx: npx -p subagent-context -p ${name} subagent-context …)` : '';
  return new CliError(EXIT.driverMissing, `the ${dialect} driver is not installed: npm install ${name}${hint}${npx}`, { cause });
}

/**
 * Runs `load` (a dynamic import of the driver, or of a module that imports it). A failure to
 * find the driver itself becomes driverMissing(); anything else (a broken install, a missing
 * file inside the driver) is rethrown as it is.
 */
export async function loadDriver<T>(name: DriverName | (string & {}), load: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissingPackage(err, name)) throw driverMissing(name, hint ?? '', err);
    throw err;
  }
}
