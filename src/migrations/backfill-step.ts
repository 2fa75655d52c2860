// backfill_subagent_contexts: AC-21…AC-24f in ONE transaction, in the order AC-24 fixes. This
// is the only place that order is written; both dialects run it (SQLite synchronously inside
// BEGIN IMMEDIATE, PostgreSQL under the advisory lock), and test/migrations-backfill-order
// observes it through each real database.
import { ACTIVATION_KEYS } from '../activation-keys.js';
import { awaited, type Flow } from './flow.js';
import { jsonHelperRefusal, jsonHelperRunnable } from './json-helper.js';
import type { AppliedOrSkipped, MigrationPrimitives } from './migration-database.js';

const { captureSince, backfillThrough } = ACTIVATION_KEYS;

export function* backfillAndWriteKeys(db: MigrationPrimitives, sampleCaptureSince: () => string): Flow<AppliedOrSkipped> {
  // AC-24d: the guard is BOTH keys, re-read under the lock; a partial pair re-runs (the INSERT
  // is then a no-op, the present key stays as it is, the missing one appears).
  const capturePresent = yield* awaited(db.keyPresent(captureSince));
  const throughPresent = yield* awaited(db.keyPresent(backfillThrough));
  if (capturePresent && throughPresent) return 'skipped';

  // Issue #16 item 3: both statements below call PostgreSQL's pg_input_is_valid (valid_jsonb.sql); it is
  // re-judged under the lock, right before them, and anything but the package's own is not run.
  const helper = (yield* awaited(db.observeShape())).jsonHelper;
  if (!jsonHelperRunnable(helper)) throw new Error(`not run: ${jsonHelperRefusal(helper)}`);

  // AC-24d: the high-water mark is read BEFORE the INSERT, so it can only under-claim: on
  // PostgreSQL's READ COMMITTED a message committed meanwhile is newer than the mark.
  const through = yield* awaited(db.readBackfillThrough());
  yield* awaited(db.insertBackfillRows());
  // AC-24 point 4: capture_since is sampled after the INSERT completed, never at the start.
  const since = sampleCaptureSince();
  // Both writes ON CONFLICT DO NOTHING, in this transaction: both keys or neither (AC-24d).
  yield* awaited(db.writeKeyOnce(backfillThrough, through));
  yield* awaited(db.writeKeyOnce(captureSince, since));
  return 'applied';
}
