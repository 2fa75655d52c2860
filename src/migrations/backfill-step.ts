// backfill_subagent_contexts: AC-21…AC-24f as a CHUNKED, resumable backfill (issues 32 and 34;
// docs/migrations.md, "The backfill in chunks", says what changed from AC-23a's one statement
// and why). This is the only place the order is written; both dialects run it, each chunk one
// transaction under the migration lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: the advisory
// lock), and test/migrations-backfill-order observes it through each real database.
//
//   mark    the high-water mark read ONCE, before any chunk's INSERT (AC-24d), outside the
//           lock-holding transactions (./backfill-mark.ts: SQLite one plain read, PostgreSQL
//           windows of their own).
//   start   (one transaction) the guard (BOTH keys, AC-24d); the mark kept in kandev_meta with
//           the cursor, so a crash or a second migrator resumes from the database, never from
//           memory.
//   stage   (SQLite only, ./backfill-stage.ts) the candidates found in storage order, a
//           rowid range per transaction, kept in a staging table the chunks then read (and
//           again if a chunk finds it incomplete: another process restarted it).
//   windows (PostgreSQL, where the host has a created_at index: ./backfill-windows.ts) windows
//           of created_at, newest first, one transaction each, the last one activating; the
//           session chunks below run there only where windows cannot (no such index, an instant
//           the role's time limit cannot cover, a session walk already under way, or
//           backfillChunk.walk 'sessions').
//   chunk   (one transaction each) the next sessions in key order after the cursor (on
//           PostgreSQL read, then locked FOR KEY SHARE by key), their messages' rows
//           (AC-21b's winner is per session and tool call, so a chunk holds every message
//           that competes for a row), the cursor moved past them.
//   last    the chunk that finds the sessions exhausted samples capture_since AFTER its
//           INSERT (AC-24 point 4), writes both keys (write-once) and removes the progress
//           keys (and the staging table), in that one transaction: both keys or neither (AC-24d).
import type { BackfillProgress, MigrationOptions } from '../types.js';
import { finishBackfill, keptMark, refuseUntrustedHelper, SESSION_CURSOR_KEY, WINDOW_TOP_KEY } from './backfill-finish.js';
import { readMark, MARK_KEY } from './backfill-mark.js';
import { firstWorkSizes, isTimeLimit, keysPresent, nextWorkSizes, pause, pauseAfter, pauseAfterAhead, progressFigure } from './backfill-pacing.js';
import { stageCandidates, stagingComplete, startStaging, STAGE_PROGRESS_KEYS } from './backfill-stage.js';
import { walksWindows, walkWindows } from './backfill-windows.js';
import { computeAhead, keepRowsAhead, type ChunkAhead } from './backfill-chunk-ahead.js';
import { awaited, type Flow } from './flow.js';
import type { AppliedOrSkipped, BackfillChunk, BackfillPacing, MigrationDatabase, MigrationPrimitives } from './migration-database.js';

/**
 * The backfill's own kandev_meta keys while it runs (never an activation key): the mark read
 * before the first chunk, the last session key done, and on SQLite phase 1's bound, cursor,
 * anchor and schema version (./backfill-stage.ts). All are removed in the transaction that writes the activation
 * keys, so a finished store holds the three keys only.
 */
export const BACKFILL_PROGRESS_KEYS = {
  through: MARK_KEY,
  cursor: SESSION_CURSOR_KEY,
  windowTop: WINDOW_TOP_KEY,
  stageBound: STAGE_PROGRESS_KEYS.bound,
  stageCursor: STAGE_PROGRESS_KEYS.cursor,
  stageAnchor: STAGE_PROGRESS_KEYS.anchor,
  stageSchema: STAGE_PROGRESS_KEYS.schema,
} as const;

/** Sessions in the first chunk; later chunks follow the time target. */
export const FIRST_CHUNK_SESSIONS = 16;
/** Never more sessions in one chunk than this, whatever the time target allows. */
export const MAX_CHUNK_SESSIONS = 20_000;

type ChunkOutcome =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'restage' }
  /** `ahead`: its rows were computed ahead, outside the lock, and only kept under it. */
  | { readonly kind: 'chunk' | 'finished'; readonly chunk: BackfillChunk; readonly rows: number; readonly ahead: boolean };

/**
 * The first transaction: the guard, and the high-water mark read once, before any INSERT.
 * 'skipped', or the phase the walk begins with ('stage' where the dialect stages); 'mark' when
 * no mark is kept yet: the runner reads one outside this transaction (./backfill-mark.ts), so no
 * host write waits for that read, then passes it here.
 */
function* startBackfill(db: MigrationPrimitives, pacing: BackfillPacing, mark?: string): Flow<'skipped' | 'mark' | BackfillProgress['phase']> {
  // AC-24d: the guard is BOTH keys, re-read under the lock; a partial pair re-runs (every
  // INSERT is then a no-op, the present key stays as it is, the missing one appears).
  if (yield* keysPresent(db)) return 'skipped';
  yield* refuseUntrustedHelper(db);
  // AC-24d: read BEFORE the first chunk's INSERT, so it can only under-claim. Kept: a resumed
  // run must publish this value, not one read after chunks already committed (which could name
  // a message committed into a session the walk had passed).
  const fresh = (yield* awaited(db.readKey(BACKFILL_PROGRESS_KEYS.through))) === undefined;
  if (fresh) {
    if (mark === undefined) return 'mark';
    const through = mark;
    yield* awaited(db.writeKeyOnce(BACKFILL_PROGRESS_KEYS.through, through));
    // A new mark starts the walk over. Progress kept from an earlier mark (whose key was removed
    // by hand) would let this later mark claim messages committed into sessions that walk had passed.
    yield* awaited(db.deleteKey(BACKFILL_PROGRESS_KEYS.cursor));
    yield* awaited(db.deleteKey(BACKFILL_PROGRESS_KEYS.windowTop));
  }
  if (yield* walksWindows(db, pacing)) return 'windows';
  // Phase 1's bound is read in this same transaction: no message before the mark is past it.
  if (!db.staging) return 'sessions';
  yield* startStaging(db, { fresh });
  return 'stage';
}

/**
 * One chunk's transaction; the one that exhausts the sessions also activates. `limit` sessions
 * are read; when their rows were not computed ahead, or what was is stale, the transaction
 * computes the rows of the first `lockedLimit` of them alone (./backfill-pacing.ts, nextWorkSizes).
 */
function* backfillChunk(db: MigrationPrimitives, limit: number, lockedLimit: number, sampleCaptureSince: () => string, ahead?: ChunkAhead): Flow<ChunkOutcome> {
  // A concurrent migrator may have finished between our transactions.
  if (yield* keysPresent(db)) return { kind: 'skipped' };
  // The chunks read what phase 1 staged: never before it is complete (another process may have
  // restarted it since this one finished it: its staging table or keys removed by hand). Back to
  // phase 1, its table and keys made whole here, under the guard just read.
  if (db.staging && !(yield* stagingComplete(db))) {
    yield* startStaging(db, { fresh: false });
    return { kind: 'restage' };
  }
  yield* refuseUntrustedHelper(db);
  const through = yield* keptMark(db);
  const after = (yield* awaited(db.readKey(BACKFILL_PROGRESS_KEYS.cursor))) ?? '';
  const read = yield* awaited(db.nextBackfillSessions(after, limit));
  refuseStuckCursor(after, read);
  const kept = read.length ? yield* keepRowsAhead(db, { after, sessions: read }, ahead) : undefined;
  // Computed under the lock: only as many sessions as the lock's own size.
  const sessions = kept === undefined && read.length > lockedLimit ? read.slice(0, lockedLimit) : read;
  let rows = kept ?? 0;
  if (kept === undefined && sessions.length) {
    // Read, then locked (PostgreSQL): a session a host deleted or re-keyed in between drops out
    // of the chunk here, while the cursor and the end of the walk follow the keys as read.
    const locked = db.lockBackfillSessions ? yield* awaited(db.lockBackfillSessions(sessions)) : sessions;
    if (locked.length) rows = yield* awaited(db.insertBackfillRows({ after, sessions: locked }));
  }
  const keptAhead = kept !== undefined;
  // Fewer read than asked, and all of them done: none is left after them (the keys were read
  // without a lock, so a short answer means the key range is exhausted). A chunk cut to the
  // lock's size goes on from its last session.
  if (read.length === limit || sessions.length < read.length) {
    yield* awaited(db.upsertKey(BACKFILL_PROGRESS_KEYS.cursor, sessions[sessions.length - 1]));
    return { kind: 'chunk', chunk: { after, sessions }, rows, ahead: keptAhead };
  }
  yield* finishBackfill(db, through, sampleCaptureSince);
  return { kind: 'finished', chunk: { after, sessions }, rows, ahead: keptAhead };
}

/**
 * The walk's second line of defence: a session read after the cursor that is the cursor itself
 * means the cursor cannot advance (a key it cannot hold exactly, which the dialect's statement
 * should never return), and the walk would read the same chunk forever: the step fails instead,
 * rolled back, so the host's boot goes on (the next run fails the same way, visibly).
 */
function refuseStuckCursor(after: string, read: readonly string[]): void {
  if (!read.includes(after)) return;
  throw new Error(
    `the backfill's session walk cannot advance: the session key ${JSON.stringify(after)} came back after the cursor it was kept as ` +
      `(${BACKFILL_PROGRESS_KEYS.cursor}); a key the cursor cannot hold exactly, the walk stopped rather than loop`,
  );
}

/** Progress only: the sessions after the cursor as this run begins (lock-free; an estimate). */
function* sessionsLeft(db: MigrationPrimitives): Flow<number> {
  const after = (yield* awaited(db.readKey(BACKFILL_PROGRESS_KEYS.cursor))) ?? '';
  return yield* awaited(db.countSessionsAfter(after));
}

function* chunkMessages(db: MigrationPrimitives, chunk: BackfillChunk): Flow<number> {
  return db.countChunkMessages ? yield* awaited(db.countChunkMessages(chunk)) : 0;
}

export async function backfillAndWriteKeys(db: MigrationDatabase, sampleCaptureSince: () => string, options: MigrationOptions = {}): Promise<AppliedOrSkipped> {
  const pacing = await db.backfillPacing(options.backfillChunk);
  let start = await db.locked((p) => startBackfill(p, pacing));
  if (start === 'mark') {
    const mark = await readMark(db, pacing, refuseUntrustedHelper);
    if (mark === 'skipped') return 'skipped';
    start = await db.locked((p) => startBackfill(p, pacing, mark === 'written' ? undefined : mark));
    // 'mark' again only if another migrator's mark key was removed meanwhile: the next run reads it again.
    if (start === 'mark') throw new Error(`${BACKFILL_PROGRESS_KEYS.through} vanished before the walk began; the next run reads the mark again`);
  }
  if (start === 'skipped') return 'skipped';
  const report = options.onBackfillProgress;
  const progress: BackfillProgress = {
    chunks: 0,
    sessions: 0,
    rowsWritten: 0,
    messagesScanned: 0,
    messagesToScan: 0,
    sessionsToWalk: 0,
    ms: 0,
    phaseMs: 0,
    done: false,
    phase: start,
  };
  if (report && start !== 'windows') progress.sessionsToWalk = await progressFigure(db, sessionsLeft);
  const started = performance.now();
  const emit = () => {
    try {
      report?.({ ...progress });
    } catch {
      // a host's progress display must not fail its upgrade
    }
  };
  let walkStarted = performance.now();
  /** SQLite's phase 1, then back to the sessions with their own clock. */
  const stage = async () => {
    progress.phase = 'stage';
    const staged = await stageCandidates(db, { pacing, progress, started, report: report && emit });
    progress.phase = 'sessions';
    walkStarted = performance.now();
    return staged;
  };
  if (start === 'stage' && (await stage()) === 'skipped') return 'skipped';
  if (start === 'windows') {
    const walked = await walkWindows(db, { pacing, progress, started, report: report && emit, sampleCaptureSince });
    if (walked !== 'sessions') return walked;
    // An instant the role's time limit cannot cover: the sessions, from the start (./backfill-windows.ts).
    progress.phase = 'sessions';
    walkStarted = performance.now();
    if (report) progress.sessionsToWalk = await progressFigure(db, sessionsLeft);
  }
  const first = Math.min(FIRST_CHUNK_SESSIONS, pacing.maxSessions);
  let sizes = firstWorkSizes(first);
  // SQLite's chunks are computed ahead of their transactions (computeAhead); PostgreSQL's host
  // writers never wait for the migration lock, and its chunks lock their sessions as they read.
  const readsAhead = start === 'stage';
  // After a chunk whose rows computed ahead were not kept (another migrator moved the cursor, the
  // host changed the chunk), the next is computed under the lock: two migrators would otherwise
  // discard each other's work.
  let computesAhead = readsAhead;
  try {
    return await walkChunks();
  } finally {
    // The temp rows table is the connection's: gone once the walk ends, however it ends.
    if (readsAhead) await db.unlocked((p) => awaited(p.staging?.dropRows())).catch(() => undefined);
  }

  async function walkChunks(): Promise<AppliedOrSkipped> {
    for (;;) {
      const t0 = performance.now();
      const ahead = computesAhead ? await db.unlocked((p) => computeAhead(p, sizes.ahead)).catch(() => undefined) : undefined;
      const limit = ahead ? sizes.ahead : sizes.locked;
      const t1 = performance.now();
      let outcome: ChunkOutcome;
      try {
        outcome = await db.locked((p) => backfillChunk(p, limit, sizes.locked, sampleCaptureSince, ahead));
      } catch (err) {
        // A chunk the role's statement_timeout or transaction_timeout cancelled is rolled back: retried at a
        // quarter of its size, down to one session, so a timeout cannot stop the walk on every
        // boot at the same chunk. Any other error fails the step (the next run resumes).
        if (!isTimeLimit(err) || Math.max(sizes.ahead, sizes.locked) === 1) throw err;
        sizes = { ...sizes, ahead: Math.max(1, Math.floor(sizes.ahead / 4)), locked: Math.max(1, Math.floor(sizes.locked / 4)) };
        continue;
      }
      const locked = performance.now() - t1;
      computesAhead = readsAhead && (ahead === undefined || outcome.kind === 'skipped' || outcome.kind === 'restage' || outcome.ahead);
      if (outcome.kind === 'skipped') return 'skipped';
      if (outcome.kind === 'restage') {
        if ((await stage()) === 'skipped') return 'skipped';
        continue;
      }
      progress.chunks++;
      const { chunk } = outcome;
      progress.sessions += chunk.sessions.length;
      progress.rowsWritten += outcome.rows;
      // Progress only: a host that asked for none pays no statement for it.
      // (SQLite counted the messages as phase 1 read them.)
      if (report && chunk.sessions.length && start !== 'stage') progress.messagesScanned += await progressFigure(db, (p) => chunkMessages(p, chunk));
      progress.ms = Math.round(performance.now() - started);
      progress.phaseMs = Math.round(performance.now() - walkStarted);
      progress.done = outcome.kind === 'finished';
      emit();
      if (outcome.kind === 'finished') return 'applied';
      // Computed ahead, the next chunk is sized by the lock this one held; under the lock, by the
      // time it would take there (./backfill-pacing.ts, nextWorkSizes).
      const last = {
        done: chunk.sessions.length,
        aheadMs: t1 - t0,
        lockedMs: locked,
        keptAhead: outcome.ahead,
        discarded: ahead !== undefined && !outcome.ahead,
      };
      sizes = nextWorkSizes(sizes, last, pacing, pacing.maxSessions);
      // Between chunks the lock is free: a host writer (SQLite) or a second migrator gets it.
      // After a chunk computed ahead, the next chunk's computation is that opening too (./backfill-pacing.ts).
      await pause(outcome.ahead ? pauseAfterAhead(locked, t1 - t0, pacing) : pauseAfter(locked, pacing));
    }
  }
}
