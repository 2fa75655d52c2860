// Whether SQLite's staging table still says what the host's messages say (issue 32;
// queries/sqlite/backfill_subagent_contexts.sql, `:stagedAt`). Phase 1 stages each candidate
// with what AC-21b ranks it by (rowid, task id, tool_call_id, created_at); a phase-2 chunk may
// rank from those columns instead of reading every candidate again, but only when no message
// can have changed since they were staged. That holds when this run created the staging table
// empty and since then:
//   - no other connection committed anything (PRAGMA data_version: it moves on every commit
//     of another connection, whatever table it wrote). The chunk statement compares it itself,
//     in its own snapshot, against the value this module read when the table was made: a
//     commit between this check and the statement cannot slip through;
//   - nothing wrote on this connection outside the backfill's own transactions and reads
//     (total_changes(): a host sharing the connection, the store's live writes on it);
//   - the schema version is unchanged (VACUUM, which may renumber rowids, changes it and no
//     row count).
// Anything else, and a run that resumed a staging table an earlier process filled, reads each
// candidate again by id, as it is then. Every test is conservative: a commit to an unrelated
// table also sends the chunks the longer way.
import type { Database } from 'better-sqlite3';
import { readChangeMarks, readSchemaVersion } from '../../generated/sqlite/index.js';

export interface StageFreshness {
  /** Runs one of the backfill's own flows (a transaction or a read ahead): the rows it changes are the backfill's. */
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

interface Baseline {
  readonly dataVersion: bigint;
  readonly foreign: bigint;
  readonly schema: bigint;
}

export function stageFreshness(db: Database): StageFreshness {
  /** This connection's row changes inside the backfill's own flows. */
  let owned = 0n;
  /** total_changes() as the running flow began (the flows are synchronous: one at a time). */
  let flowStart: bigint | undefined;
  let baseline: Baseline | undefined;
  const marks = () => readChangeMarks.one({}, db);
  /** This connection's row changes outside the backfill's flows: the host's, or the store's live writes. */
  const foreign = () => (flowStart ?? marks().changes) - owned;
  const schema = () => readSchemaVersion.one({}, db).version;
  return {
    own(flow) {
      if (flowStart !== undefined) return flow(); // already inside one of ours
      flowStart = marks().changes;
      try {
        return flow();
      } finally {
        try {
          owned += marks().changes - flowStart;
        } catch {
          baseline = undefined; // the count is lost (a closed connection): never claim freshness again
        }
        flowStart = undefined;
      }
    },
    begin() {
      baseline = { dataVersion: marks().dataVersion, foreign: foreign(), schema: schema() };
    },
    end() {
      baseline = undefined;
    },
    stagedAt() {
      if (!baseline || foreign() !== baseline.foreign || schema() !== baseline.schema) return null;
      return baseline.dataVersion;
    },
  };
}
