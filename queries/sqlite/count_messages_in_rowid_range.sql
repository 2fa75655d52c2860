/*
 * The backfill's progress in phase 1 on SQLite (issue 32 item 4): the messages with rowids in
 * (after, upTo], read after the range commits, outside any transaction of the backfill, and
 * only when a host asked for progress (runMigrations({ onBackfillProgress }), the CLI's
 * migrate): a host that shows none pays nothing for it.
 */
/* @returns one */
/* @name countMessagesInRowidRange */
SELECT count(*) AS "messages!" FROM task_session_messages AS m WHERE m.rowid > :after! AND m.rowid <= :upTo!;
