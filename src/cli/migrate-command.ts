// `subagent-context migrate`: runs runMigrations() against the host's database and prints
// its report. The host's tables must already exist: the package reads them and never creates
// them, so pointing it at anything else is an error, not an empty database — unless
// --create-host-tables asks for them (store.createHostTables(), the standalone path), which
// also creates a SQLite file that does not exist yet. Without a database option it migrates
// SUBAGENT_CONTEXT_DB or the proxy's default store (./default-target.ts). The backfill's
// progress goes to stderr (./backfill-progress-bar.ts).
import { existsSync } from 'node:fs';
import { backfillProgressBar, stderrTerminal } from './backfill-progress-bar.js';
import type { CliCommand } from './command.js';
import { databaseError } from './cli-error.js';
import { DATABASE_OPTIONS, describeTarget, withDatabase } from './database.js';
import { chooseTarget, chosenTargetNote, requireDefaultStore } from './default-target.js';
import { EXIT } from './exit-codes.js';
import { formatMigration } from '../render/format-migration.js';

const HOST_TABLES = ['task_sessions', 'task_session_messages'] as const;

export const migrateCommand: CliCommand = {
  summary: 'bring task_session_subagents to the current shape, backfill it, write the activation keys',
  synopsis: '[--sqlite FILE | --postgres URL] [--create-host-tables] [--json]',
  details: [
    'Needs the host tables (task_sessions, task_session_messages); --create-host-tables creates',
    "them first where they are absent (for a database that is not a host's; a SQLite file is",
    'created too). Without --sqlite/--postgres: $SUBAGENT_CONTEXT_DB (a file path or a postgres://',
    "URL), else the proxy's default store. Exit status: 0 ok, 6 a step failed, 2 usage error,",
    '7 database error, 8 driver not installed.',
  ].join('\n'),
  options: { ...DATABASE_OPTIONS, 'create-host-tables': { type: 'boolean', default: false } },
  async run(values, io) {
    const chosen = chooseTarget(values as { sqlite?: string; postgres?: string });
    const { target } = chosen;
    const createHostTables = values['create-host-tables'] === true;
    requireDefaultStore(chosen, existsSync);
    const note = chosenTargetNote(chosen, 'migrating');
    if (note) io.err(`subagent-context: ${note}`);
    return withDatabase(target, { readonly: false, create: createHostTables }, async (db) => {
      if (createHostTables) await db.store.createHostTables();
      const present = await db.probeTables();
      const missing = HOST_TABLES.filter((t) => !present[t]);
      if (missing.length)
        throw databaseError(
          `missing host table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: this is not the host's database (nothing was created; ` +
            '--create-host-tables creates them if it is meant to hold them)',
        );
      // The backfill's progress on stderr: a bar on a terminal, plain lines elsewhere.
      const bar = backfillProgressBar(stderrTerminal(io.err));
      const report = await db.store.runMigrations({ onBackfillProgress: bar.update }).finally(bar.end);
      io.out(values.json ? `${JSON.stringify(report)}\n` : formatMigration(report, describeTarget(target)));
      return report.ok ? EXIT.ok : EXIT.migrationFailed;
    });
  },
};
