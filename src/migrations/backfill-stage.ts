// Phase 1 of a staged backfill (SQLite; issue 32, docs/migrations.md "The backfill in
// chunks"). The session chunks of ./backfill-step.ts would otherwise read every message of
// their sessions through the host's (task_session_id, created_at) index, a row lookup per
// message: 2.2-2.8x the storage-order read 0.2's single statement made (BENCHMARKS.md). So the
// host's messages are first read in storage order, a rowid range per transaction, and the
// messages that can qualify are kept in a staging table; the session chunks then write from
// those candidates alone, each read again by id and judged as it is then, or, while nothing
// can have changed since, ranked from the columns staged with it (src/sqlite/stage-freshness.ts).
// AC-21b's winner is still chosen per session and tool call inside one chunk, over every
// candidate of the session.
//
//   start   (./backfill-step.ts, the first transaction) the staging table created, the rowid
//           bound read with the high-water mark: phase 1 walks (start, bound], start one below
//           the least rowid.
//   ahead   (no transaction, no write lock) the candidates of (cursor, cursor + n] read into the
//           connection's temp range table, a statement that reads the host's database without
//           its write lock: the expensive part of a range, while a host writer may commit (in
//           WAL mode). Not inside a transaction of the host's on the same connection, and not
//           for the range after one whose read was not kept (two migrators would keep
//           discarding each other's reads).
//   range   (one transaction each) the candidates read ahead kept in the staging table, or,
//           where they may be stale (another migrator moved the cursor, the schema version
//           changed: VACUUM, or the table no longer holds them all), read again under the lock
//           first; the cursor moved to just below the next message there is (rowids may jump
//           by billions), and its anchor (the message with the greatest rowid at or below it,
//           by rowid and id) kept in kandev_meta. A message the host changed between the read
//           and the transaction is judged as phase 2 sees it, as one changed after its range
//           was staged always was.
//   check   before each range. SQLite documents that VACUUM may renumber a table's rowids (in
//           order, closing gaps). The walk starts over (what it staged stays: phase 2 reads each
//           candidate by id), up to a bound read again, when a message now sits at or below the
//           cursor above the anchor (rows moved down into the part walked), or the anchor has
//           another rowid. An anchor the host deleted proves nothing either way, so then the
//           schema version kept with it decides (VACUUM changes it): the walk starts over only
//           if it changed, so a host deleting messages never restarts it on its own.
//   phase 2 reads the staging table only once phase 1 is complete (stagingComplete): a chunk
//           that finds it incomplete (another process restarted it) goes back to phase 1.
import type { BackfillProgress } from '../types.js';
import { firstWorkSizes, keysPresent, nextWorkSizes, pause, pauseAfter, pauseAfterAhead, progressFigure } from './backfill-pacing.js';
import { awaited, type Flow } from './flow.js';
import type { BackfillPacing, MigrationDatabase, MigrationPrimitives, StagingPrimitives } from './migration-database.js';

/** Phase 1's kandev_meta keys; removed, with the staging table, when the activation keys are written. */
export const STAGE_PROGRESS_KEYS = {
  bound: 'subagent_context_backfill_stage_bound',
  cursor: 'subagent_context_backfill_stage_cursor',
  anchor: 'subagent_context_backfill_stage_anchor',
  schema: 'subagent_context_backfill_stage_schema',
} as const;

/** Rowids in the first range; later ranges follow the time target, as the session chunks do. */
const FIRST_STAGE_ROWIDS = 65_536;
/**
 * Never more rowids in one range, whatever the time target allows (backfillChunk.maxStageRowids
 * overrides it). Ranges are sized in rowids, not messages: after a stretch the host emptied
 * (quick ranges, so they grow), a range may land where every rowid holds a message. This bound
 * keeps such a range near half a second here (about 1 µs a message on the benchmark stores);
 * contiguous stores settle well below it (about 180,000 rowids for a 200 ms target).
 */
export const MAX_STAGE_ROWIDS = 524_288;

/** backfillChunk.maxStageRowids when it is a positive integer, else the default. */
export function maxStageRowids(override: number | undefined): number {
  return override !== undefined && Number.isSafeInteger(override) && override > 0 ? override : MAX_STAGE_ROWIDS;
}

type StageOutcome =
  | { readonly kind: 'skipped' | 'staged' | 'restarted' }
  /** `cursor`: where the next range starts (past any gap after `upTo`); `readAhead`: its candidates were read outside the lock. */
  | { readonly kind: 'range'; readonly after: bigint; readonly upTo: bigint; readonly cursor: bigint; readonly last: boolean; readonly readAhead: boolean };

/** A range's candidates in the temp range table, `rows` of them, read outside the lock from (after, upTo] while the schema version was `schema`. */
interface ReadAhead {
  readonly after: bigint;
  readonly upTo: bigint;
  readonly schema: bigint;
  readonly rows: number;
}

function staging(db: MigrationPrimitives): StagingPrimitives {
  if (!db.staging) throw new Error('a staged backfill on a database without staging primitives');
  return db.staging;
}

function* requiredKey(db: MigrationPrimitives, key: string): Flow<string> {
  const value = yield* awaited(db.readKey(key));
  if (value === undefined) throw new Error(`${key} vanished mid-backfill; the next run starts over`);
  return value;
}

/**
 * In a run's first transaction, and when a chunk found phase 1 incomplete: the staging table
 * and phase 1's bound and cursor (every message committed before the transaction has a rowid
 * in (start, bound]). A backfill resumed with its phase-1 keys and table intact goes on; one
 * whose keys or table are gone (removed by hand: a crash cannot split them) stages again from
 * the start, and so does one with a new mark (`fresh`: what an earlier mark staged is dropped).
 */
export function* startStaging(db: MigrationPrimitives, options: { readonly fresh: boolean }): Flow<void> {
  const stage = staging(db);
  if (options.fresh) yield* awaited(stage.dropStage());
  else {
    const bound = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.bound));
    const cursor = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.cursor));
    if (bound !== undefined && cursor !== undefined && (yield* awaited(stage.stageExists()))) return;
  }
  yield* awaited(stage.createStage());
  yield* restartStaging(db, stage);
}

/** Phase 1 from the start: the cursor below the least rowid there is now, the bound at the greatest. */
function* restartStaging(db: MigrationPrimitives, stage: StagingPrimitives): Flow<void> {
  const { start, bound } = yield* awaited(stage.readRowidBound());
  yield* awaited(db.deleteKey(STAGE_PROGRESS_KEYS.anchor));
  yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.cursor, String(start)));
  yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.bound, String(bound)));
  yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.schema, String(yield* awaited(stage.schemaVersion()))));
}

/** Whether phase 1 has staged every range up to its bound, into a staging table that is there. */
export function* stagingComplete(db: MigrationPrimitives): Flow<boolean> {
  const bound = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.bound));
  const cursor = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.cursor));
  if (bound === undefined || cursor === undefined || BigInt(cursor) < BigInt(bound)) return false;
  return yield* awaited(staging(db).stageExists());
}

/** In the transaction that writes the activation keys: nothing of phase 1 is left. */
export function* endStaging(db: MigrationPrimitives): Flow<void> {
  yield* awaited(staging(db).dropStage());
  for (const key of Object.values(STAGE_PROGRESS_KEYS)) yield* awaited(db.deleteKey(key));
}

/** `${rowid}:${id}`: the rowid is digits, so the first ':' ends it whatever the id holds. */
function parseAnchor(value: string): { rowid: bigint; id: string } {
  const at = value.indexOf(':');
  return { rowid: BigInt(value.slice(0, at)), id: value.slice(at + 1) };
}

/** The range after phase 1's cursor, `rowids` wide and never past its bound. */
function rangeAfter(after: bigint, bound: bigint, rowids: number): bigint {
  return after + BigInt(rowids) < bound ? after + BigInt(rowids) : bound;
}

/**
 * The next range's candidates, read into the temp range table outside any transaction: the
 * statement writes only the connection's temp schema, so it reads the host's database without
 * the write lock. Undefined when there is nothing to read ahead (the range's transaction then
 * decides), the read failed (the transaction reads the range again under the lock, where a
 * real failure surfaces), or the connection is inside a transaction: the host's, whose rollback
 * would undo the read and whose uncommitted writes it would see.
 */
function* readAhead(db: MigrationPrimitives, rowids: number): Flow<ReadAhead | undefined> {
  const stage = staging(db);
  if (stage.inTransaction()) return undefined;
  yield* awaited(stage.createRange());
  yield* awaited(stage.clearRange());
  const bound = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.bound));
  const cursor = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.cursor));
  if (bound === undefined || cursor === undefined || BigInt(cursor) >= BigInt(bound)) return undefined;
  const after = BigInt(cursor);
  const upTo = rangeAfter(after, BigInt(bound), rowids);
  const schema = yield* awaited(stage.schemaVersion());
  const rows = yield* awaited(stage.stageRange(after, upTo));
  return { after, upTo, schema, rows };
}

/**
 * One range's transaction: `rowids` wide when its candidates were read ahead and are kept; read
 * under the lock (nothing read ahead, or what was is stale), `lockedRowids` at most
 * (./backfill-pacing.ts, nextWorkSizes).
 */
function* stageRange(db: MigrationPrimitives, rowids: number, lockedRowids: number, ahead: ReadAhead | undefined): Flow<StageOutcome> {
  // A concurrent migrator may have finished between our transactions.
  if (yield* keysPresent(db)) return { kind: 'skipped' };
  const stage = staging(db);
  const bound = BigInt(yield* requiredKey(db, STAGE_PROGRESS_KEYS.bound));
  const after = BigInt(yield* requiredKey(db, STAGE_PROGRESS_KEYS.cursor));
  if (after >= bound) return { kind: 'staged' };
  if (yield* renumbered(db, stage, after)) {
    // The old ranges mean nothing now. The new bound covers every message there is, those
    // committed after the mark included (rows for them are what a chunk of the session walk
    // would also have written).
    yield* restartStaging(db, stage);
    return { kind: 'restarted' };
  }
  let upTo = rangeAfter(after, bound, rowids);
  // The candidates read ahead are this range's if it is the range they were read for, no VACUUM
  // renumbered the rowids since (it changes the schema version), and the table still holds all
  // of them; else the range is read under the lock.
  yield* awaited(stage.createRange()); // gone if a host transaction made it and rolled back
  const current =
    ahead !== undefined &&
    ahead.after === after &&
    ahead.upTo === upTo &&
    ahead.schema === (yield* awaited(stage.schemaVersion())) &&
    ahead.rows === (yield* awaited(stage.countRange()));
  if (!current) {
    upTo = rangeAfter(after, bound, Math.min(rowids, lockedRowids));
    yield* awaited(stage.clearRange());
    yield* awaited(stage.stageRange(after, upTo));
  }
  yield* awaited(stage.keepRange());
  yield* awaited(stage.clearRange());
  // The next range starts just below the next message there is, never past the bound.
  const next = yield* awaited(stage.nextRowidAfter(upTo));
  const cursor = next === undefined || next > bound ? bound : next - 1n;
  const end = yield* awaited(stage.anchorAtOrBelow(cursor));
  if (end) yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.anchor, `${end.rowid}:${end.id}`));
  yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.cursor, String(cursor)));
  yield* awaited(db.upsertKey(STAGE_PROGRESS_KEYS.schema, String(yield* awaited(stage.schemaVersion()))));
  return { kind: 'range', after, upTo, cursor, last: cursor >= bound, readAhead: current };
}

/** Whether the rowids below the cursor changed since the last range (the header's check). */
function* renumbered(db: MigrationPrimitives, stage: StagingPrimitives, cursor: bigint): Flow<boolean> {
  const kept = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.anchor));
  const now = yield* awaited(stage.anchorAtOrBelow(cursor));
  if (kept === undefined) return now !== undefined; // nothing was at or below the cursor
  const anchor = parseAnchor(kept);
  if (now !== undefined && now.rowid > anchor.rowid) return true; // a message moved down into the part walked
  const rowid = yield* awaited(stage.rowidOf(anchor.id));
  if (rowid !== undefined) return rowid !== anchor.rowid;
  // The anchor is gone: the rows may have moved without any sign left among them but this.
  const keptSchema = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.schema));
  return keptSchema === undefined || BigInt(keptSchema) !== (yield* awaited(stage.schemaVersion()));
}

export interface StagingRun {
  readonly pacing: BackfillPacing;
  readonly progress: BackfillProgress;
  /** performance.now() when the backfill's first transaction began (progress.ms). */
  readonly started: number;
  /** Reports the progress; absent when the host asked for none (then no figure is read). */
  readonly report: (() => void) | undefined;
}

/** Phase 1, from the cursor in kandev_meta to the bound: 'staged', or 'skipped' when another migrator finished. */
export async function stageCandidates(db: MigrationDatabase, run: StagingRun): Promise<'staged' | 'skipped'> {
  // Again after a chunk sent the walk back here: what was read before stays counted.
  if (run.report) run.progress.messagesToScan = run.progress.messagesScanned + (await progressFigure(db, rowidsLeft));
  try {
    return await stageRanges(db, run);
  } finally {
    // The temp range table is the connection's: gone once phase 1 ends, however it ends.
    await db.unlocked((p) => awaited(staging(p).dropRange())).catch(() => undefined);
  }
}

async function stageRanges(db: MigrationDatabase, run: StagingRun): Promise<'staged' | 'skipped'> {
  const { pacing, progress } = run;
  const first = Math.min(FIRST_STAGE_ROWIDS, pacing.maxStageRowids);
  let sizes = firstWorkSizes(first);
  const started = performance.now();
  // After a range whose read ahead was not kept (another migrator moved the cursor meanwhile),
  // the next is read under the lock: two migrators would otherwise discard each other's reads.
  let readsAhead = true;
  for (;;) {
    const t0 = performance.now();
    const ahead: ReadAhead | undefined = readsAhead ? await db.unlocked((p) => readAhead(p, sizes.ahead)).catch(() => undefined) : undefined;
    const t1 = performance.now();
    const outcome: StageOutcome = await db.locked((p) => stageRange(p, ahead ? sizes.ahead : sizes.locked, sizes.locked, ahead));
    const locked = performance.now() - t1;
    readsAhead = ahead === undefined || outcome.kind !== 'range' || outcome.readAhead;
    if (outcome.kind === 'skipped' || outcome.kind === 'staged') return outcome.kind;
    // Started over: what is left is the whole table again.
    if (outcome.kind === 'restarted' && run.report) progress.messagesToScan = progress.messagesScanned + (await progressFigure(db, rowidsLeft));
    if (outcome.kind === 'range') {
      progress.chunks++;
      if (run.report) {
        // The range's rowids and the gap after it, not a count: counting would read the range twice.
        progress.messagesScanned += Number(outcome.cursor - outcome.after);
        progress.ms = Math.round(performance.now() - run.started);
        progress.phaseMs = Math.round(performance.now() - started);
        run.report();
      }
      if (outcome.last) return 'staged';
      // Read ahead, the next range is sized by the lock this one held; under the lock, by the
      // time it would take there (./backfill-pacing.ts, nextWorkSizes).
      const last = {
        done: Number(outcome.upTo - outcome.after),
        aheadMs: t1 - t0,
        lockedMs: locked,
        keptAhead: outcome.readAhead,
        discarded: ahead !== undefined && !outcome.readAhead,
      };
      sizes = nextWorkSizes(sizes, last, pacing, pacing.maxStageRowids);
    }
    // Between ranges the lock is free: a host writer or a second migrator gets it. After a
    // range read ahead, the next range's read is that opening too (./backfill-pacing.ts).
    await pause(outcome.kind === 'range' && outcome.readAhead ? pauseAfterAhead(locked, t1 - t0, pacing) : pauseAfter(locked, pacing));
  }
}

/** Progress only: the rowids phase 1 has left, as this run begins (lock-free; an estimate). */
function* rowidsLeft(db: MigrationPrimitives): Flow<number> {
  const bound = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.bound));
  const cursor = yield* awaited(db.readKey(STAGE_PROGRESS_KEYS.cursor));
  return bound === undefined || cursor === undefined ? 0 : Math.max(0, Number(BigInt(bound) - BigInt(cursor)));
}
