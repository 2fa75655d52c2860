// `subagent-context host-index`: store.ensureHostIndex() against the host's database, the
// optional index that lets `health` read only a window's subagent candidates
// (docs/host-index.md). Explicit on purpose: it is an index on the host's table, so it is never
// a side effect of `migrate`.
import type { CliCommand } from './command.js';
import { DATABASE_OPTIONS, DATABASE_SYNOPSIS, databaseTarget, describeTarget, withDatabase } from './database.js';
import { EXIT } from './exit-codes.js';
import { visibleLines } from '../render/display-text.js';

const SAID = { created: 'created', present: 'already present, nothing done', rebuilt: 'rebuilt over an unfinished build' } as const;

export const hostIndexCommand: CliCommand = {
  summary: "build the optional index on the host's messages table that makes `health` read only a window's subagent candidates",
  synopsis: DATABASE_SYNOPSIS,
  details:
    'Idempotent. SQLite builds it under the write lock (one read of the whole table); PostgreSQL builds it CONCURRENTLY. Drop it with DROP INDEX idx_messages_subagent_candidates. Exit status: 0 ok, 2 usage error, 7 database error (an index of that name with another definition included), 8 driver not installed.',
  options: DATABASE_OPTIONS,
  async run(values, io) {
    const target = databaseTarget(values as { sqlite?: string; postgres?: string });
    return withDatabase(target, { readonly: false }, async (db) => {
      const report = await db.store.ensureHostIndex();
      io.out(
        values.json
          ? `${JSON.stringify(report)}\n`
          : visibleLines(`${describeTarget(target)}: ${report.index} ${SAID[report.outcome]} (${Math.round(report.ms)} ms)\n`),
      );
      return EXIT.ok;
    });
  },
};
