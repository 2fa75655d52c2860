/*
 * The window walk's read (issue 32 item 5): index and sequential scans off for the rest of this
 * transaction, so backfill_window_contexts.sql reads its created_at window as a bitmap heap scan:
 * each page of the window once, in the order the pages lie on disk. Through the index the same
 * window cost about 1.4–1.9× the single statement on the sparse 1M-message store, by bitmap
 * 1.1–1.2× (BENCHMARKS.md, "Issue 32, the walk's reads"); with index scans off alone the planner
 * chose a sequential scan of the whole table per window (11–13×). Written as set_config(…,
 * is_local => true) as set_local_work_mem.sql is; COMMIT or ROLLBACK restores the connection's
 * own settings. The runner sets it after the window's edges are read (next_backfill_window.sql
 * needs its index scans) and before the window's INSERT.
 */
/* @returns one */
/* @name setLocalBitmapScans */
SELECT set_config('enable_indexscan', 'off', true) AS "enable_indexscan!",
       set_config('enable_seqscan', 'off', true) AS "enable_seqscan!";
