// What both walks of the backfill share (./backfill-step.ts walks sessions, ./backfill-windows.ts
// windows of created_at): the guard against an untrusted JSON helper, the walks' cursor keys, and
// the transaction that ends the backfill by writing both activation keys.
import { ACTIVATION_KEYS } from '../activation-keys.js';
import { MARK_KEY } from './backfill-mark.js';
import { endStaging } from './backfill-stage.js';
import { awaited, type Flow } from './flow.js';
import { jsonHelperRefusal, jsonHelperRunnable } from './json-helper.js';
import type { MigrationPrimitives } from './migration-database.js';

/** The session walk's cursor: the last session key done ('' before the first; its presence also says the walk is by session). */
export const SESSION_CURSOR_KEY = 'subagent_context_backfill_cursor';
/** The window walk's cursor: the next window's top, as the created_at column's own text. */
export const WINDOW_TOP_KEY = 'subagent_context_backfill_window_top';

/** Issue #16 item 3: the statements call PostgreSQL's pg_input_is_valid (valid_jsonb.sql); re-judged under each lock. */
export function* refuseUntrustedHelper(db: MigrationPrimitives): Flow<void> {
  const helper = yield* awaited(db.observeJsonHelper());
  if (!jsonHelperRunnable(helper)) throw new Error(`not run: ${jsonHelperRefusal(helper)}`);
}

/**
 * The end of the walk, in the transaction of its last INSERT: AC-24 point 4, capture_since
 * sampled after that INSERT completed, never earlier; both keys written ON CONFLICT DO NOTHING,
 * so both or neither (AC-24d); then the progress keys (and SQLite's staging table) removed.
 */
export function* finishBackfill(db: MigrationPrimitives, through: string, sampleCaptureSince: () => string): Flow<void> {
  const since = sampleCaptureSince();
  yield* awaited(db.writeKeyOnce(ACTIVATION_KEYS.backfillThrough, through));
  yield* awaited(db.writeKeyOnce(ACTIVATION_KEYS.captureSince, since));
  for (const key of [SESSION_CURSOR_KEY, WINDOW_TOP_KEY, MARK_KEY]) yield* awaited(db.deleteKey(key));
  if (db.staging) yield* endStaging(db);
}

/** The mark the walk publishes, kept by its first transaction (./backfill-step.ts). */
export function* keptMark(db: MigrationPrimitives): Flow<string> {
  const through = yield* awaited(db.readKey(MARK_KEY));
  if (through === undefined) throw new Error(`${MARK_KEY} vanished mid-backfill; the next run starts over`);
  return through;
}
