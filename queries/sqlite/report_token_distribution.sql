/*
 * REPORT — the distribution of total_tokens over the window's settled, measured subagents,
 * in 1-2-5 buckets: `digits` is the number of decimal digits of the value and `lead` its
 * bucket within that decade (1: leading digit 1, 2: leading digit 2–4, 5: leading digit
 * 5–9), so a bucket is [lead, next lead) x 10^(digits-1), computed on the integer's text
 * with no floating point. Only measured values count, as report_tokens.sql reads them
 * (positive_metric): NULL (not reported, AC-7), a stored 0 (AC-7a) or negative (AC-9)
 * is never a bucket in this histogram; the caller reports those rows as unmeasured.
 *
 * Window and scope exactly as report_row_counts.sql (AC-24e, spec § Permissions); a backfilled
 * row another row already records (shadowed_backfill) is left out, as in report_tokens.sql.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): utc9, positive_metric, shadowed_backfill.
 */
/* @returns many */
/* @name reportTokenDistribution */
SELECT length(CAST(s.total_tokens AS TEXT)) AS "digits!",
       CASE substr(CAST(s.total_tokens AS TEXT), 1, 1) WHEN '1' THEN 1 WHEN '2' THEN 2 WHEN '3' THEN 2 WHEN '4' THEN 2 ELSE 5 END AS "lead!",
       COUNT(*) AS "subagents!"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
   AND s.settled_at IS NOT NULL
   AND {{positive_metric(s.total_tokens)}} IS NOT NULL
   AND NOT {{shadowed_backfill(s)}}
   AND (:taskIds IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j)))
   AND (:since! = '' OR {{utc9(s.observed_at)}} >= :since!)
   AND (:until! = '~' OR {{utc9(s.observed_at)}} < :until!)
 GROUP BY 1, 2;
