/*
 * The rowids the SQLite backfill's phase 1 (src/migrations/backfill-stage.ts) walks:
 * (start, bound], read once in the backfill's first transaction with the high-water mark, so
 * every message committed before that transaction is inside. start is one below the least
 * rowid (a host may have written rowids at or below 0); an empty table walks (0, 0].
 */
/* @returns one */
/* @name readMessageRowidBound */
SELECT COALESCE(min(m.rowid) - 1, 0) AS "start!::bigint", COALESCE(max(m.rowid), 0) AS "bound!::bigint" FROM task_session_messages AS m;
