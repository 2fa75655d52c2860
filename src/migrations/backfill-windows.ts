// PostgreSQL's backfill as a walk over windows of the host's created_at (issue 32 item 5;
// docs/migrations.md, "PostgreSQL: windows of created_at"). The session walk
// (./backfill-step.ts) read each message through an index and, because a page holds messages of
// several sessions, read the table about as many times as sessions share a page: 3.4–4.6× the
// single statement on the sparse 1M store, up to 17× where 64 sessions interleave. A window
// reads its pages once each, in disk order (a bitmap heap scan), whatever the interleaving.
//
//   window  (one transaction each, under the migration lock) the guard; the next window's
//           edges (next_backfill_window.sql: the newest message at or below the cursor, down
//           `width` microseconds); its rows (backfill_window_contexts.sql, which locks the
//           sessions it writes for); the cursor moved below it. Newest first, so the first
//           window with a qualifying message for a key holds that key's newest (AC-21b), and
//           DO NOTHING keeps it against older windows.
//   last    the window with nothing below it, or the probe that finds nothing left, writes both
//           activation keys in its own transaction (./backfill-finish.ts).
//
// The first window holds the newest FIRST_WINDOW_MESSAGES; later ones are sized in time,
// following the time target as the session chunks' size does (./backfill-pacing.ts), and each
// window's statement is cancelled past WINDOW_LIMIT_TARGETS times the target (windowLimitMs). A
// window the role's time limit or that one cancels is retried a quarter as large; one that
// cannot shrink (the newest instant alone, or a microsecond wide) is retried once without the
// package's own limit, and if the role's limit cancels it too (an instant holding more messages
// than the role allows), the walk goes on by session from the start, which is correct from any
// point: every row a window wrote is its key's winner, and the session walk's DO NOTHING keeps it.
import type { BackfillProgress } from '../types.js';
import { finishBackfill, keptMark, refuseUntrustedHelper, SESSION_CURSOR_KEY, WINDOW_TOP_KEY } from './backfill-finish.js';
import { isTimeLimit, keysPresent, nextChunkSize, pause, pauseAfter, progressFigure } from './backfill-pacing.js';
import { awaited, type Flow } from './flow.js';
import type { BackfillPacing, MigrationDatabase, MigrationPrimitives, WindowPrimitives } from './migration-database.js';

/** Before the first window: every message, one created at 'infinity' included. */
const NEWEST = 'infinity';
/**
 * The first window holds about this many of the newest messages (all of a smaller store, in one
 * transaction), whatever the history's span; later ones are sized in time, from the last one's
 * width and how long it took.
 */
export const FIRST_WINDOW_MESSAGES = 10_000;
/**
 * A window's statement is cancelled past this many times the time target (a transaction aims at
 * 0.8 of it): sized in time, a window reaching from a sparse stretch into a dense one can hold many
 * times the messages it was sized for, and is then retried a quarter as wide.
 */
export const WINDOW_LIMIT_TARGETS = 4;
/** PostgreSQL's largest statement_timeout (ms). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * A window statement's own limit: WINDOW_LIMIT_TARGETS times the target, never above the role's
 * own limit (`roleLimitMs`, 0 for none) nor PostgreSQL's largest; undefined where that is no
 * finite positive number (a target of Infinity or NaN: then no limit of the package's own). A
 * review found a limit set from a large override failing every boot (22023), and one above the
 * role's raising it.
 */
export function windowLimitMs(targetMs: number, roleLimitMs: number): number | undefined {
  const ms = Math.min(WINDOW_LIMIT_TARGETS * targetMs, roleLimitMs > 0 ? roleLimitMs : Infinity);
  return Number.isFinite(ms) && ms >= 1 ? Math.min(Math.round(ms), MAX_TIMEOUT_MS) : undefined;
}
/** Never a wider window (100 years), whatever the time target allows (backfillChunk.maxWindowMs overrides it). */
export const MAX_WINDOW_US = 100 * 365.25 * 24 * 3600 * 1_000_000;

/** backfillChunk.maxWindowMs in microseconds when it is positive and finite, else the default. */
export function maxWindowUs(overrideMs: number | undefined): number {
  if (overrideMs === undefined || !Number.isFinite(overrideMs) || overrideMs <= 0) return MAX_WINDOW_US;
  return Math.min(MAX_WINDOW_US, Math.max(1, Math.round(overrideMs * 1000)));
}

/** The next window's size: its width, at most `messages` of the newest (0: no count), and its statement's time limit. */
interface WindowSize {
  readonly widthUs: number;
  readonly messages: number;
  readonly limitMs: number | undefined;
}

type WindowOutcome =
  | { readonly kind: 'skipped' | 'sessions' }
  | { readonly kind: 'window' | 'finished'; readonly rows: number; readonly lo: string; readonly top: string; readonly widthUs: number | null };

function windowsOf(db: MigrationPrimitives): WindowPrimitives {
  if (!db.windows) throw new Error('backfill-windows: this dialect has no window walk');
  return db.windows;
}

/** Whether this run walks windows: the dialect can, the host did not ask for sessions, no session walk is under way, and the index is there. */
export function* walksWindows(db: MigrationPrimitives, pacing: Pick<BackfillPacing, 'walk'>): Flow<boolean> {
  if (!db.windows || pacing.walk === 'sessions') return false;
  // A session walk under way (an earlier version's, or one this walk fell back to) goes on as it is.
  if ((yield* awaited(db.readKey(SESSION_CURSOR_KEY))) !== undefined) return false;
  return yield* awaited(db.windows.available());
}

/** One window's transaction; the one with nothing below it also activates. */
function* backfillWindow(db: MigrationPrimitives, size: WindowSize, sampleCaptureSince: () => string): Flow<WindowOutcome> {
  if (yield* keysPresent(db)) return { kind: 'skipped' };
  // Another migrator fell back to the session walk meanwhile: this one follows it.
  if ((yield* awaited(db.readKey(SESSION_CURSOR_KEY))) !== undefined) return { kind: 'sessions' };
  yield* refuseUntrustedHelper(db);
  const through = yield* keptMark(db);
  const top = (yield* awaited(db.readKey(WINDOW_TOP_KEY))) ?? NEWEST;
  const windows = windowsOf(db);
  const window = yield* awaited(windows.nextWindow(top, size.widthUs, size.messages));
  const rows = window ? yield* awaited(windows.insertWindowRows(window.lo, top, size.limitMs)) : 0;
  if (window?.below) {
    yield* awaited(db.upsertKey(WINDOW_TOP_KEY, window.below));
    return { kind: 'window', rows, lo: window.lo, top, widthUs: window.widthUs };
  }
  yield* finishBackfill(db, through, sampleCaptureSince);
  return { kind: 'finished', rows, lo: window?.lo ?? top, top, widthUs: null };
}

/** The walk falls back to sessions from the start (the module's comment says why that is correct). */
function* fallBackToSessions(db: MigrationPrimitives): Flow<void> {
  if (yield* keysPresent(db)) return;
  if ((yield* awaited(db.readKey(SESSION_CURSOR_KEY))) === undefined) yield* awaited(db.upsertKey(SESSION_CURSOR_KEY, ''));
  yield* awaited(db.deleteKey(WINDOW_TOP_KEY));
}

/** Progress only: the messages at or below the cursor as this run begins (lock-free; an estimate). */
function* messagesLeft(db: MigrationPrimitives): Flow<number> {
  const top = (yield* awaited(db.readKey(WINDOW_TOP_KEY))) ?? NEWEST;
  return yield* awaited(windowsOf(db).countWindowMessages('-infinity', top));
}

export interface WindowRun {
  readonly pacing: BackfillPacing;
  readonly progress: BackfillProgress;
  /** performance.now() when the backfill's first transaction began (progress.ms). */
  readonly started: number;
  /** Reports the progress; absent when the host asked for none (then no figure is read). */
  readonly report: (() => void) | undefined;
  readonly sampleCaptureSince: () => string;
}

/** The window walk from the cursor in kandev_meta: 'applied', 'skipped' (another migrator finished), or 'sessions' to walk by session instead. */
export async function walkWindows(db: MigrationDatabase, run: WindowRun): Promise<'applied' | 'skipped' | 'sessions'> {
  const { pacing, progress } = run;
  const maxWidth = pacing.maxWindowUs ?? MAX_WINDOW_US;
  if (run.report) progress.messagesToScan = await progressFigure(db, messagesLeft);
  const started = performance.now();
  // The first window is counted (and within the widest window); later ones are sized in time.
  let width = maxWidth;
  let messages = FIRST_WINDOW_MESSAGES;
  // The window's own limit bounds its size; for a window that cannot shrink it only stands in the
  // way (and it also cuts short a wait for a host's lock), so that one is retried without it.
  let ownLimit = true;
  for (;;) {
    const t0 = performance.now();
    let outcome: WindowOutcome;
    try {
      const size = { widthUs: width, messages, limitMs: ownLimit ? pacing.windowLimitMs : undefined };
      outcome = await db.locked((p) => backfillWindow(p, size, run.sampleCaptureSince));
    } catch (err) {
      if (!isTimeLimit(err)) throw err;
      if (messages > 1) {
        messages = Math.max(1, Math.floor(messages / 4));
        continue;
      }
      if (messages === 0 && width > 1) {
        width = Math.max(1, Math.floor(width / 4));
        continue;
      }
      if (ownLimit && pacing.windowLimitMs !== undefined) {
        ownLimit = false;
        continue;
      }
      await db.locked(fallBackToSessions);
      return 'sessions';
    }
    ownLimit = true;
    const elapsed = performance.now() - t0;
    if (outcome.kind !== 'window' && outcome.kind !== 'finished') return outcome.kind;
    progress.chunks++;
    progress.rowsWritten += outcome.rows;
    progress.done = outcome.kind === 'finished';
    // Progress only: a host that asked for none pays no statement for it.
    if (run.report) {
      const { lo, top } = outcome;
      progress.messagesScanned += await progressFigure(db, (p) => awaited(windowsOf(p).countWindowMessages(lo, top)));
      progress.ms = Math.round(performance.now() - run.started);
      progress.phaseMs = Math.round(performance.now() - started);
      run.report();
    }
    if (outcome.kind === 'finished') return 'applied';
    // Sized from the window as it was (the counted first one's width is what its messages spanned).
    // An infinite instant has no width: the next window is counted again, as the first was (a
    // review: one message at 'infinity' made the next window 100 years wide, the whole store).
    if (outcome.widthUs !== null) {
      width = nextChunkSize(Math.max(1, Math.round(Math.min(width, outcome.widthUs))), elapsed, pacing, maxWidth);
      messages = 0;
    }
    await pause(pauseAfter(elapsed, pacing));
  }
}
