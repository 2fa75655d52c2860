/*
 * DEMO report — the provenance split consumers must disclose (AC-25): rows recovered by the
 * backfill from message metadata versus rows the live writer recorded, and how many carry a
 * real execution identity rather than the 'unknown' sentinel (AC-31).
 */
/* @name demoProvenanceSplit */
SELECT s.source AS "source!",
       COUNT(*)::int AS "rows!",
       SUM(CASE WHEN s.agent_execution_id <> 'unknown' THEN 1 ELSE 0 END)::int AS "real_execution!",
       COUNT(s.settled_at)::int AS "settled!",
       COUNT(s.total_tokens)::int AS "measured!"
  FROM task_session_subagents AS s
 GROUP BY s.source
 ORDER BY s.source;
