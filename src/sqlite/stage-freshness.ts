// Whether SQLite's staging table still says what the host's messages say (issue 32;
// queries/sqlite/backfill_subagent_contexts.sql, `:stagedAt`). Phase 1 stages each candidate
// with what AC-21b ranks it by (rowid, task id, tool_call_id, created_at); a phase-2 chunk may
// rank from those columns instead of reading every candidate again, but only when no message
// can have changed since they were staged. That holds when this run created the staging table
// empty and, since then:
//   - no other connection committed anything (PRAGMA data_version: it moves on every commit
//     of another connection, whatever table it wrote). The chunk statement compares it itself,
//     in its own snapshot, against the value read when the table was made, so a commit just
//     before the statement cannot slip through;
//   - between two of the backfill's own transactions and reads, nothing changed a row on this
//     connection (total_changes(): a host sharing the connection, the store's live writes on
//     it) or the schema (its version: VACUUM, which may renumber rowids, any DDL);
//   - no trigger sits on a table the backfill writes: it would fire inside the backfill's own
//     transaction, where what it writes passes for the backfill's (queries/sqlite/
//     read_stage_freshness_marks.sql).
// Anything else, and a run that resumed a staging table an earlier process filled, reads each
// candidate again by id, as it is then. Every test is conservative: a commit to an unrelated
// table, a host's trigger on kandev_meta, send every later chunk the longer way.
import type { Database } from 'better-sqlite3';
import { readChangeMarks, readStageFreshnessMarks } from '../../generated/sqlite/index.js';

export interface StageFreshness {
  /** Runs one of the backfill's own flows (a transaction or a read ahead): what it changes is the backfill's. */
  own<T>(flow: () => T): T;
  /** The staging table was just created, empty, by this run: from here on it holds what this run stages. */
  begin(): void;
  /** The staging table is gone, or holds what another run staged. */
  end(): void;
  /**
   * The data_version under which every staged column is what the host's messages hold, as far
   * as this connection can tell (the chunk statement checks it in its snapshot); null when it
   * cannot be sure.
   */
  stagedAt(): bigint | null;
}

type Marks = ReturnType<typeof readStageFreshnessMarks.one>;

export function stageFreshness(db: Database): StageFreshness {
  let inFlow = false;
  /** The marks as the backfill's last flow ended: the next one must begin with the same. */
  let lastEnd: Marks | undefined;
  /** Set by begin(), null once anything else may have touched the database. */
  let dataVersion: bigint | null = null;
  const marks = () => readStageFreshnessMarks.one({}, db);
  const untouched = (a: Marks, b: Marks) => a.changes === b.changes && a.schema === b.schema && a.writeTriggers === 0n && b.writeTriggers === 0n;
  return {
    own(flow) {
      if (inFlow) return flow(); // already inside one of ours
      // While nothing staged by this run is trusted (no backfill under way, or freshness already
      // lost) there is nothing to check, and no query on every other flow (each boot's fast path).
      try {
        if (dataVersion !== null && lastEnd && !untouched(lastEnd, marks())) dataVersion = null;
      } catch {
        dataVersion = null; // unreadable (a closed connection): never claim freshness again
      }
      inFlow = true;
      try {
        return flow();
      } finally {
        inFlow = false;
        try {
          lastEnd = dataVersion !== null ? marks() : undefined;
        } catch {
          lastEnd = undefined;
          dataVersion = null;
        }
      }
    },
    begin() {
      // The marks as the table was made: the next flow must begin with the same.
      lastEnd = marks();
      dataVersion = lastEnd.writeTriggers === 0n ? readChangeMarks.one({}, db).dataVersion : null;
    },
    end() {
      dataVersion = null;
    },
    stagedAt() {
      return dataVersion !== null && marks().writeTriggers === 0n ? dataVersion : null;
    },
  };
}
