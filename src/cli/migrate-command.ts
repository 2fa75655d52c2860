// `subagent-context migrate`: runs runMigrations() against the host's database and prints
// its report. The host's tables must already exist: the package reads them and never creates
// them, so pointing it at anything else is an error, not an empty database.
import type { CliCommand } from './command.js';
import { databaseError } from './cli-error.js';
import { DATABASE_OPTIONS, DATABASE_SYNOPSIS, databaseTarget, describeTarget, withDatabase } from './database.js';
import { EXIT } from './exit-codes.js';
import { formatMigration } from '../render/format-migration.js';

const HOST_TABLES = ['task_sessions', 'task_session_messages'] as const;

export const migrateCommand: CliCommand = {
  summary: 'bring task_session_subagents to the current shape, backfill it, write the activation keys',
  synopsis: DATABASE_SYNOPSIS,
  details:
    'Needs the host tables (task_sessions, task_session_messages). Exit status: 0 ok, 6 a step failed, 2 usage error, 7 database error, 8 driver not installed.',
  options: DATABASE_OPTIONS,
  async run(values, io) {
    const target = databaseTarget(values as { sqlite?: string; postgres?: string });
    return withDatabase(target, { readonly: false }, async (db) => {
      const present = await db.probeTables();
      const missing = HOST_TABLES.filter((t) => !present[t]);
      if (missing.length) throw databaseError(`missing host table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: this is not the host's database`);
      const report = await db.store.runMigrations();
      io.out(values.json ? `${JSON.stringify(report)}\n` : formatMigration(report, describeTarget(target)));
      return report.ok ? EXIT.ok : EXIT.migrationFailed;
    });
  },
};
