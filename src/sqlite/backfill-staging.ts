// SQLite's staged backfill primitives (src/migrations/backfill-stage.ts, phase 1, and
// src/migrations/backfill-chunk-ahead.ts, phase 2's chunks computed ahead): the staging table,
// the migrating connection's temp tables (schema/backfill/sqlite), and the statements over them.
import type { Database } from 'better-sqlite3';
import {
  backfillSchema,
  backfillSubagentContexts,
  checkBackfillRows,
  clearBackfillRange,
  clearBackfillRows,
  countBackfillRange,
  dropBackfillRange,
  dropBackfillRows,
  dropBackfillStage,
  keepBackfillRange,
  keepBackfillRows,
  probeBackfillStage,
  readChangeMarks,
  readMessageRowidAnchor,
  readMessageRowidBound,
  readMessageRowidById,
  readNextMessageRowid,
  readSchemaVersion,
  stageBackfillCandidates,
} from '../../generated/sqlite/index.js';
import { schemaScript, type StagingPrimitives } from '../migrations/migration-database.js';
import { stageFreshness, type StageFreshness } from './stage-freshness.js';

const script = (name: string) => schemaScript(backfillSchema, name, 'sqlite');

const BACKFILL_STAGE = script('backfill_stage');
const BACKFILL_RANGE = script('backfill_range');
const BACKFILL_ROWS = script('backfill_rows');

/** The least rowid SQLite allows: phase 1's cursor may start one below it (a BigInt, never bound). */
const SQLITE_MIN_ROWID = -(2n ** 63n);

/**
 * Phase 1 of the backfill (src/migrations/backfill-stage.ts): the host's messages read in
 * storage order, a rowid range at a time. The host's table is an ordinary rowid table
 * (schema/host/sqlite), as the chunk statement has always assumed.
 */
export function sqliteStaging(db: Database, freshness: StageFreshness = stageFreshness(db)): StagingPrimitives {
  const stageExists = () => probeBackfillStage.one({}, db).present === 1n;
  return {
    createStage: () => {
      const existed = stageExists();
      db.exec(BACKFILL_STAGE.sql);
      // Made empty here: what it holds from now on is this run's. One that was there holds another run's.
      if (existed) freshness.end();
      else freshness.begin();
    },
    stageExists,
    nextRowidAfter: (after) => readNextMessageRowid.maybeOne({ after }, db)?.rid,
    dropStage: () => {
      dropBackfillStage.exec({}, db);
      freshness.end();
    },
    readRowidBound: () => {
      // One below the least rowid, in TypeScript: below -2^63 there is no SQLite integer.
      const { least, bound } = readMessageRowidBound.one({}, db);
      return { start: least - 1n, bound };
    },
    createRange: () => void db.exec(BACKFILL_RANGE.sql),
    stageRange: (after, upTo) => stageBackfillCandidates.exec({ from: after + 1n, upTo }, db),
    keepRange: () => keepBackfillRange.exec({}, db),
    countRange: () => Number(countBackfillRange.one({}, db).rows),
    inTransaction: () => db.inTransaction,
    clearRange: () => void clearBackfillRange.exec({}, db),
    dropRange: () => void dropBackfillRange.exec({}, db),
    computeRows: ({ after, sessions }) => {
      db.exec(BACKFILL_ROWS.sql);
      clearBackfillRows.exec({}, db);
      // Ranked from the staged columns only while nothing can have changed since they were staged.
      return backfillSubagentContexts.exec({ after, upTo: sessions[sessions.length - 1], stagedAt: freshness.stagedAt() }, db);
    },
    keepRows: () => {
      const kept = keepBackfillRows.exec({}, db);
      clearBackfillRows.exec({}, db);
      return kept;
    },
    changeMarks: () => readChangeMarks.one({}, db),
    checkRows: () => {
      db.exec(BACKFILL_ROWS.sql); // gone if a host transaction made it and rolled back
      const { rows, gone } = checkBackfillRows.one({}, db);
      return { rows: Number(rows), gone: Number(gone) };
    },
    dropRows: () => void dropBackfillRows.exec({}, db),
    anchorAtOrBelow: (upTo) => {
      if (upTo < SQLITE_MIN_ROWID) return undefined; // a walk from -2^63 starts below every rowid
      const row = readMessageRowidAnchor.maybeOne({ upTo }, db);
      return row && { rowid: row.rid, id: String(row.id) };
    },
    rowidOf: (id) => readMessageRowidById.maybeOne({ id }, db)?.rid,
    schemaVersion: () => readSchemaVersion.one({}, db).version,
  };
}
