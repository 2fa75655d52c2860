// SQLite's phase-2 chunks computed ahead of their transactions (issue 32; docs/migrations.md,
// "SQLite: computed ahead, kept under the lock"): a chunk's rows are computed into the migrating
// connection's temp rows table outside any transaction, and the chunk's transaction
// (./backfill-step.ts) keeps them only when they are still its own.
import { SESSION_CURSOR_KEY } from './backfill-finish.js';
import { keysPresent } from './backfill-pacing.js';
import { stagingComplete } from './backfill-stage.js';
import { awaited, type Flow } from './flow.js';
import type { BackfillChunk, ChangeMarks, MigrationPrimitives } from './migration-database.js';

/** A chunk's rows computed ahead of its transaction into the temp rows table (SQLite): `rows` of them, for these sessions under this schema version. */
export interface ChunkAhead extends BackfillChunk {
  readonly schema: bigint;
  readonly rows: number;
  /** Other connections' commits as the computation began, this connection's writes as it ended. */
  readonly marks: ChangeMarks;
}

/**
 * SQLite: the next chunk's rows computed outside any transaction, into the connection's temp
 * rows table (a statement that writes only the temp schema takes no write lock), so a host
 * writer commits while the chunk's expensive part runs (in WAL mode). Undefined when there is
 * nothing to compute ahead, or the connection is inside a transaction (the host's, whose
 * rollback would undo the rows and whose uncommitted writes they would read); the chunk's
 * transaction then decides, as it does when the rows are stale.
 */
export function* computeAhead(db: MigrationPrimitives, limit: number): Flow<ChunkAhead | undefined> {
  const stage = db.staging;
  if (!stage || stage.inTransaction() || (yield* keysPresent(db)) || !(yield* stagingComplete(db))) return undefined;
  const after = (yield* awaited(db.readKey(SESSION_CURSOR_KEY))) ?? '';
  const sessions = yield* awaited(db.nextBackfillSessions(after, limit));
  if (!sessions.length) return undefined;
  const schema = yield* awaited(stage.schemaVersion());
  const { dataVersion } = yield* awaited(stage.changeMarks());
  const rows = yield* awaited(stage.computeRows({ after, sessions }));
  const { changes } = yield* awaited(stage.changeMarks());
  return { after, sessions, schema, rows, marks: { dataVersion, changes } };
}

/**
 * The chunk's rows computed ahead, kept, when they are this chunk's (the same sessions after the
 * same cursor, read again here under the lock, the same schema version, all of them still in the
 * table, and each one's winning message still in its session): how many. Undefined when they are
 * not, or there are none: the chunk's transaction then computes its rows under the lock, where a
 * deleted winner's runner-up wins. A message the host edited between the two is written as it
 * was when computed, as one edited right after the chunk's commit always was.
 */
export function* keepRowsAhead(db: MigrationPrimitives, chunk: BackfillChunk, ahead: ChunkAhead | undefined): Flow<number | undefined> {
  const stage = db.staging;
  const same =
    stage !== undefined &&
    ahead !== undefined &&
    ahead.after === chunk.after &&
    ahead.sessions.length === chunk.sessions.length &&
    ahead.sessions.every((id, i) => id === chunk.sessions[i]) &&
    ahead.schema === (yield* awaited(stage.schemaVersion())) &&
    (yield* rowsStillThere(stage, ahead));
  return same ? yield* awaited(stage.keepRows()) : undefined;
}

/** Nothing written anywhere since the computation: the rows are as computed. Else each row's winner is looked up. */
function* rowsStillThere(stage: NonNullable<MigrationPrimitives['staging']>, ahead: ChunkAhead): Flow<boolean> {
  const now = yield* awaited(stage.changeMarks());
  if (now.dataVersion === ahead.marks.dataVersion && now.changes === ahead.marks.changes) return true;
  const check = yield* awaited(stage.checkRows());
  return check.rows === ahead.rows && check.gone === 0;
}
