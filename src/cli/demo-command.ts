// `subagent-context demo`: the package's main job end to end on a database of its own: by
// default a new SQLite file (the embedded default), or an empty PostgreSQL database. Like
// the other commands it takes its database through databaseTarget() (the same argument
// checks), prints through the CLI's output stream, and fails through the CLI's error path
// (one line on stderr, an exit code from exit-codes.ts).
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import type { CliCommand } from './command.js';
import { databaseError, toCliError, usageError } from './cli-error.js';
import { databaseTarget } from './database.js';
import { loadDriver } from './driver.js';
import { EXIT } from './exit-codes.js';

/** Where the demo writes when given no database. */
export const DEFAULT_DEMO_SQLITE_FILE = 'subagent-context-demo.db';

export const demoCommand: CliCommand = {
  summary: 'seed a sample host history, migrate and backfill it, play recorded ACP traffic through the recorder, print the report',
  synopsis: '[--sqlite FILE | --postgres URL] [--verbose]',
  details:
    `Creates FILE (default ./${DEFAULT_DEMO_SQLITE_FILE}), replaces its own earlier FILE, or uses an EMPTY ` +
    'SQLite file or PostgreSQL database; never deletes or writes into a database it did not create (a single table ' +
    "or view of anyone's is a refusal, and FILE is left byte for byte). Prints the finding; --verbose prints the full " +
    'walk-through. Exit status: 0 ok, 2 usage error or a database the demo refuses, 7 database error or the demo did ' +
    "not end healthy, 8 the dialect's driver is not installed.",
  options: { sqlite: { type: 'string' }, postgres: { type: 'string' }, verbose: { type: 'boolean' } },
  async run(values, io) {
    const given = values.sqlite !== undefined || values.postgres !== undefined;
    const target: DatabaseTarget = given
      ? databaseTarget(values as { sqlite?: string; postgres?: string })
      : { dialect: 'sqlite', file: DEFAULT_DEMO_SQLITE_FILE };
    // Loaded on demand, like the drivers: --help and usage errors stay fast.
    const { DemoRefusal, openDemoDatabase, runDemo, shellWord } = await import('../demo/index.js');
    let database: Awaited<ReturnType<typeof openDemoDatabase>>;
    try {
      const open = () => openDemoDatabase(target);
      database = await matchDialect(target, {
        sqlite: () => loadDriver('better-sqlite3', open, given ? '' : ' (or run it on PostgreSQL: subagent-context demo --postgres URL)'),
        postgres: () => loadDriver('pg', open),
      });
    } catch (err) {
      // A database the demo did not make is the wrong argument, not a broken database.
      throw err instanceof DemoRefusal ? usageError(`refusing to run: ${err.message}`) : toCliError(err, true);
    }
    // The hint for the full walk-through keeps the user's database option: without it, `demo
    // --verbose` would run on the default file instead. A PostgreSQL database is never reused
    // (the demo only writes into an empty one), so there the hint names the option, not the URL.
    const rerunOption = !given
      ? ''
      : matchDialect(target, { sqlite: ({ file }) => `--sqlite ${shellWord(file)}`, postgres: () => '--postgres EMPTY_DATABASE_URL' });
    const outcome = await runDemo(database, io.out, { verbose: values.verbose === true, rerunOption });
    if (!outcome.migrationOk) throw databaseError('the demo did not end healthy: the upgrade failed (see the migration report above)');
    if ('error' in outcome.health) throw databaseError(`the demo did not end healthy: the health check failed: ${outcome.health.error}`);
    if (outcome.health.verdict !== 'healthy') throw databaseError(`the demo did not end healthy: verdict ${outcome.health.verdict}`);
    return EXIT.ok;
  },
};
