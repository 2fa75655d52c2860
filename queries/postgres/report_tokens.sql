/*
 * REPORT — token usage of the window's subagent rows, grouped three ways: by source (the
 * provenance split AC-25 requires before live and backfilled figures are read side by side),
 * by subagent_type and by model. One row per (dimension, value); value NULL is "not reported".
 * `settled` counts rows whose launching tool call reached a terminal status (AC-11); of
 * those, `measured` reported total_tokens and `total_tokens` sums them. A settled row with
 * total_tokens NULL did not report usage (AC-7, AC-7a): the caller counts it as unmeasured,
 * never as 0, so no mean is ever diluted by it. So is a stored 0 or negative (AC-7a, AC-9)
 * and, on SQLite, a value that is not an INTEGER: the window reads total_tokens through
 * positive_metric, which turns each into NULL before anything is counted or summed, so one
 * such row neither fails the report nor drags a mean. Unsettled rows are outside the token figures.
 * SUM of BIGINT is NUMERIC here, exact; it comes back as text like every count.
 *
 * Window and scope exactly as report_row_counts.sql (AC-24e, spec § Permissions). A backfilled
 * row another row already records (shadowed_backfill, AC-22's overlap) is left out: its
 * invocation is counted once, by that row.
 * NOT MATERIALIZED: each branch rescans the window through idx_subagents_observed_at rather
 * than holding the window's rows in a work table, so memory stays flat as it grows.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): positive_metric, shadowed_backfill.
 */
/* @returns many */
/* @name reportTokens */
WITH w AS NOT MATERIALIZED (
  SELECT s.source, s.subagent_type, s.model, s.settled_at, {{positive_metric(s.total_tokens)}} AS total_tokens
    FROM task_session_subagents AS s
   WHERE s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp
     AND NOT {{shadowed_backfill(s)}}
     AND (:taskIds::text IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT jsonb_array_elements_text(:taskIds::text::jsonb))))
)
SELECT 'source' AS "dimension!", w.source AS "value?", COUNT(*)::text AS "rows!", COUNT(w.settled_at)::text AS "settled!",
       COUNT(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END)::text AS "measured!",
       COALESCE(SUM(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END), 0)::text AS "total_tokens!"
  FROM w GROUP BY w.source
UNION ALL
SELECT 'subagent_type', w.subagent_type, COUNT(*)::text, COUNT(w.settled_at)::text,
       COUNT(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END)::text,
       COALESCE(SUM(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END), 0)::text
  FROM w GROUP BY w.subagent_type
UNION ALL
SELECT 'model', w.model, COUNT(*)::text, COUNT(w.settled_at)::text,
       COUNT(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END)::text,
       COALESCE(SUM(CASE WHEN w.settled_at IS NOT NULL THEN w.total_tokens END), 0)::text
  FROM w GROUP BY w.model;
