// The CLI in a one-driver project (issue 17 items 2 and 4): a driver that is not installed is
// one line naming what to install, exit 8, and `--version` prints the package's version. A
// project without `pg` or `better-sqlite3` is test/packaging-hosts.test.ts's (this repository has
// both); here loadDriver() meets a package that is really absent, and the real binary answers
// --version.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli/cli-error.js';
import { loadDriver } from '../src/cli/driver.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { assertBuilt, runCliBinary } from './helpers/cli.js';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const ABSENT = 'subagent-context-no-such-driver';

beforeAll(() => assertBuilt());

describe('CLI: drivers and --version', () => {
  /** loadDriver's failure with npm_command as npm sets it for the CLI (`exec` under npx), restored after. */
  const missing = async (npmCommand: string | undefined) => {
    const before = process.env.npm_command;
    if (npmCommand === undefined) delete process.env.npm_command;
    else process.env.npm_command = npmCommand;
    try {
      return await loadDriver(ABSENT, () => import(/* @vite-ignore */ ABSENT), ' (or something else)').catch((e: unknown) => e);
    } finally {
      if (before === undefined) delete process.env.npm_command;
      else process.env.npm_command = before;
    }
  };

  it('a driver that is not installed: a CliError naming `npm install <driver>`, exit 8, the import error on cause', async () => {
    const err = await missing(undefined);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT.driverMissing);
    expect((err as CliError).code).toBe('driver_missing');
    expect((err as CliError).message).toBe(`the ${ABSENT} driver is not installed: npm install ${ABSENT} (or something else)`);
    expect(((err as CliError).cause as { code?: string }).code).toMatch(/MODULE_NOT_FOUND/);
  });

  it('run through npx, the line also says how to name the driver to npx (an install in the folder would not reach it)', async () => {
    expect(((await missing('exec')) as CliError).message).toBe(
      `the ${ABSENT} driver is not installed: npm install ${ABSENT} (or something else) (with npx: npx -p subagent-context -p ${ABSENT} subagent-context …)`,
    );
    expect(((await missing('run-script')) as CliError).message).not.toContain('npx');
  });

  it('a driver that is installed loads; a missing module inside an installed driver is not "not installed"', async () => {
    expect(typeof (await loadDriver('pg', () => import('pg'))).default.Pool).toBe('function');
    const broken = Object.assign(new Error("Cannot find module './lib/missing.js'"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(loadDriver('pg', () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it.each(['--version', '-V', 'version'])('%s prints the version from package.json and exits 0', async (flag) => {
    const run = await runCliBinary([flag]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.code).toBe(0);
  });

  it('--help names --version', async () => {
    const run = await runCliBinary(['--help']);
    expect(run.stdout).toMatch(/subagent-context --version/);
    expect(run.code).toBe(0);
  });
});
