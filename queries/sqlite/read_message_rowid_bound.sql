/*
 * The rowids the SQLite backfill's phase 1 (src/migrations/backfill-stage.ts) walks, read once
 * in the backfill's first transaction with the high-water mark, so every message committed
 * before that transaction is inside: from the least rowid (a host may have written rowids at or
 * below 0, down to -2^63) to the greatest. An empty table reads as least 1, greatest 0 (the
 * runner walks (0, 0]: nothing).
 */
/* @returns one */
/* @name readMessageRowidBound */
SELECT COALESCE(min(m.rowid), 1) AS "least!::bigint", COALESCE(max(m.rowid), 0) AS "bound!::bigint" FROM task_session_messages AS m;
