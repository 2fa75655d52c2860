// The high-water mark (AC-24 point 1), read before ./backfill-step.ts writes it, so before any
// chunk's INSERT (AC-24d): the mark can only under-claim. Never inside a transaction holding the
// write lock: SQLite reads it in one statement, outside any transaction (a WAL read never blocks
// a host's write; inside BEGIN IMMEDIATE the read held every host write for its whole length,
// 0.3 s over a day of messages in the busy-host test). PostgreSQL reads it in windows
// (queries/postgres/read_backfill_through.sql says why): the newest window first, each in a
// locked transaction of its own, sized to the pacing's time target as the chunks are, and
// retried at a quarter of its size when the role's time limit cancels it.
import { isTimeLimit, keysPresent, nextChunkSize } from './backfill-pacing.js';
import { awaited, type Flow } from './flow.js';
import type { BackfillPacing, MigrationDatabase, MigrationPrimitives } from './migration-database.js';

/** Messages in the first window; later ones follow the time target. */
export const FIRST_MARK_WINDOW = 10_000;
/** Never more messages in one window than this, whatever the time target allows. */
export const MAX_MARK_WINDOW = 4_000_000;
/** Before the first window: every message ('infinity' itself excepted, which no mark can name). */
const NEWEST = 'infinity';

/** A window's answer: the mark, or where the next window starts; or why the read stopped. */
type Window = { readonly kind: 'skipped' | 'written' } | { readonly kind: 'window'; readonly through: string; readonly edge: string | null };

function* markWindow(db: MigrationPrimitives, before: string, limit: number, guard: (p: MigrationPrimitives) => Flow<void>): Flow<Window> {
  if (yield* keysPresent(db)) return { kind: 'skipped' };
  // Another migrator wrote its mark meanwhile: the walk goes on under that one.
  if ((yield* awaited(db.readKey(MARK_KEY))) !== undefined) return { kind: 'written' };
  yield* guard(db);
  const read = db.readBackfillThroughWindow;
  if (!read) throw new Error('readMarkInWindows: a dialect reads its mark in one statement or in windows');
  return { kind: 'window', ...(yield* awaited(read(before, limit))) };
}

/** The backfill's pending mark key (./backfill-step.ts BACKFILL_PROGRESS_KEYS.through). */
export const MARK_KEY = 'subagent_context_backfill_pending_through';

/**
 * The mark: a value to write; 'written' when another migrator wrote one first; 'skipped' when
 * the store activated meanwhile (the windows' answers; the one-statement read leaves both to the
 * transaction that writes it, which re-reads the guard).
 */
export async function readMark(
  db: MigrationDatabase,
  pacing: Pick<BackfillPacing, 'targetMs'>,
  guard: (p: MigrationPrimitives) => Flow<void>,
): Promise<string | 'written' | 'skipped'> {
  const whole = await db.unlocked(function* (p) {
    return p.readBackfillThrough ? yield* awaited(p.readBackfillThrough()) : undefined;
  });
  return whole ?? readMarkInWindows(db, pacing, guard);
}

/** The mark, window by window from the newest message (PostgreSQL). */
async function readMarkInWindows(
  db: MigrationDatabase,
  pacing: Pick<BackfillPacing, 'targetMs'>,
  guard: (p: MigrationPrimitives) => Flow<void>,
): Promise<string | 'written' | 'skipped'> {
  let before = NEWEST;
  let limit = FIRST_MARK_WINDOW;
  for (;;) {
    const t0 = performance.now();
    let window: Window;
    try {
      window = await db.locked((p) => markWindow(p, before, limit, guard));
    } catch (err) {
      if (!isTimeLimit(err) || limit === 1) throw err;
      limit = Math.max(1, Math.floor(limit / 4));
      continue;
    }
    if (window.kind !== 'window') return window.kind;
    // A qualifying message in this window is the newest of all (every newer window had none).
    if (window.through !== '' || window.edge === null) return window.through;
    before = window.edge;
    limit = nextChunkSize(limit, performance.now() - t0, pacing, MAX_MARK_WINDOW);
  }
}
