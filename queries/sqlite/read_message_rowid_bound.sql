/*
 * The rowids the SQLite backfill's phase 1 (src/migrations/backfill-stage.ts) walks:
 * (start, bound], read once in the backfill's first transaction with the high-water mark, so
 * every message committed before that transaction is inside. start is one below the least
 * rowid (a host may have written rowids at or below 0); an empty table walks (0, 0]. The least
 * rowid SQLite allows, -2^63, has nothing below it: one below it would be a REAL and fail every
 * boot, so start stays there and a message stored at that very rowid is not read (documented).
 */
/* @returns one */
/* @name readMessageRowidBound */
SELECT COALESCE(CASE WHEN min(m.rowid) > -9223372036854775808 THEN min(m.rowid) - 1 ELSE min(m.rowid) END, 0) AS "start!::bigint", COALESCE(max(m.rowid), 0) AS "bound!::bigint" FROM task_session_messages AS m;
