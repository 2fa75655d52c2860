/*
 * Whether anything was written since a chunk's rows were computed ahead
 * (src/migrations/backfill-chunk-ahead.ts): PRAGMA data_version changes when another connection
 * commits, total_changes() counts this connection's own writes (the host's code, on a shared
 * connection, runs between the computation and the chunk's transaction). Both as they were: the
 * store is as the computation read it, and the rows need no check message by message.
 */
/* @returns one */
/* @name readChangeMarks */
SELECT d.data_version AS "dataVersion!::bigint", total_changes() AS "changes!::bigint"
  FROM pragma_data_version AS d;
