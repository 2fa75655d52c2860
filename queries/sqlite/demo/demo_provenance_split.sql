/*
 * DEMO report — the provenance split consumers must disclose (AC-25): rows recovered by the
 * backfill from message metadata versus rows the live writer recorded, and how many carry a
 * real execution identity rather than the 'unknown' sentinel (AC-31).
 */
/* @name demoProvenanceSplit */
SELECT s.source AS "source!",
       COUNT(*) AS "rows!::bigint",
       SUM(CASE WHEN s.agent_execution_id <> 'unknown' THEN 1 ELSE 0 END) AS "real_execution!::bigint",
       COUNT(s.settled_at) AS "settled!::bigint",
       COUNT(s.total_tokens) AS "measured!::bigint"
  FROM task_session_subagents AS s
 GROUP BY s.source
 ORDER BY s.source;
