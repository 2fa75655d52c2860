/*
 * REPORT — the distribution of total_tokens over the window's settled, measured subagents,
 * in 1-2-5 buckets: `digits` is the number of decimal digits of the value and `lead` its
 * bucket within that decade (1: leading digit 1, 2: leading digit 2–4, 5: leading digit
 * 5–9), so a bucket is [lead, next lead) x 10^(digits-1), computed on the integer's text
 * with no floating point. Only reported values count: NULL (not reported, AC-7) is never a
 * 0 in this histogram; the caller reports those rows as unmeasured.
 *
 * Window and scope exactly as report_row_counts.sql (AC-24e, spec § Permissions).
 *
 * Inlined fragments, each copy marked with its name and pinned to one canonical text by
 * test/sql-fragment-pin.test.ts: utc9. Inlined rather than shared because SQLite's SQL
 * cannot define a function, and a view could serve only the package's own table, never the
 * host's messages (DESIGN §3): one pin covers every copy (reasons in that test's header).
 */
/* @name reportTokenDistribution */
SELECT length(CAST(s.total_tokens AS TEXT)) AS "digits!",
       CASE substr(CAST(s.total_tokens AS TEXT), 1, 1) WHEN '1' THEN 1 WHEN '2' THEN 2 WHEN '3' THEN 2 WHEN '4' THEN 2 ELSE 5 END AS "lead!",
       COUNT(*) AS "subagents!"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
   AND s.settled_at IS NOT NULL
   AND s.total_tokens > 0
   AND (:taskIds IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j)))
   AND (:since! = '' OR (/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!)
   AND (:until! = '~' OR (/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) < :until!)
 GROUP BY 1, 2;
