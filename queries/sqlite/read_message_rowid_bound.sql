/*
 * The rowids the SQLite backfill's phase 1 (src/migrations/backfill-stage.ts) walks, read once
 * in the backfill's first transaction with the high-water mark, so every message committed
 * before that transaction is inside: from the least rowid (a host may have written rowids at or
 * below 0, down to -2^63) to the greatest. An empty table reads as least 1, greatest 0 (the
 * runner walks (0, 0]: nothing).
 * Two subqueries: SQLite answers a lone min() or max() of the rowid from one end of the
 * table's B-tree, but both in one SELECT read every row (62-90 ms on dense-1m's 1M messages,
 * under the write lock).
 */
/* @returns one */
/* @name readMessageRowidBound */
SELECT COALESCE((SELECT min(m.rowid) FROM task_session_messages AS m), 1) AS "least!::bigint",
       COALESCE((SELECT max(m.rowid) FROM task_session_messages AS m), 0) AS "bound!::bigint";
