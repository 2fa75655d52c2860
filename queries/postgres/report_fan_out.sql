/*
 * REPORT — fan-out: how many turns spawned exactly k subagents (spec § Why), one row per
 * (era, k). A turn is (task_session_id, turn_id); rows without a turn_id belong to no turn
 * and are left out. Its fan-out is its number of rows: two rows that differ only in
 * agent_execution_id are two real invocations that reused an id (spec § Data model). A
 * backfilled row that shadowed_backfill finds recorded by another row (AC-22's overlap: the
 * same invocation, captured live too) is not a row of any turn here, so the invocation is
 * counted once, by its live row.
 *
 * Turns are taken whole. A turn is in this window when its FIRST row is (so consecutive
 * windows never count a turn twice), and every row of the turn counts, including rows
 * observed at or after :until; `past_until` counts such turns. A turn that has rows in the
 * window but began before :since is reported once, as era 'before_since', for the caller to
 * count; it belongs to the earlier window.
 *
 * Era (AC-25, AC-24f, AC-24c): a turn is 'known' when its first row was observed at or
 * after :knownFrom, the instant from which fan-out is known (subagent_context_backfill_through,
 * or capture_since when backfill_through is the '' sentinel; the caller decides and passes
 * NULL when no boundary may be published). Otherwise it is 'unknown': its activity predates
 * the boundary, so its count is what survived, a lower bound and never a zero. Equality
 * lands on the known side (AC-24 point 3). Rows before a key are still counted: the keys
 * bound completeness, never validity (AC-25 revision 2).
 *
 * Window and scope exactly as report_row_counts.sql (AC-24e, spec § Permissions): the
 * window's rows come through idx_subagents_observed_at, each touched turn's rows through
 * idx_subagents_turn_id, and every comparison is timestamp against timestamp.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): shadowed_backfill.
 */
/* @returns many */
/* @name reportFanOut */
WITH touched AS (
  SELECT DISTINCT s.task_session_id, s.turn_id
    FROM task_session_subagents AS s
   WHERE s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp
     AND s.turn_id IS NOT NULL
     AND NOT {{shadowed_backfill(s)}}
     AND (:taskIds::text IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT jsonb_array_elements_text(:taskIds::text::jsonb))))
),
per_turn AS (
  -- The shadowed test is read in the select list of a fenced subquery (OFFSET 0), not as a qual
  -- of the join: PostgreSQL charges a qual's subplan at every row it may reach, whatever the AND
  -- before it skips, so on a store of one session with 120,000 rows that estimate swamped the
  -- join's own cost, and with some ANALYZE samples it chose a merge join on task_session_id
  -- alone, the turn a filter: 120,000 × 30,000 comparisons, the report minutes long (PostgreSQL 15,
  -- test/report-many-labels.test.ts, 2026-12). A select-list cost is the same for every join order.
  SELECT COUNT(*) AS subagents, MIN(v.observed_at) AS first_at, MAX(v.observed_at) AS last_at
    FROM (SELECT w.task_session_id, w.turn_id, a.observed_at, {{shadowed_backfill(a)}} AS shadowed
            FROM touched AS w
            JOIN task_session_subagents AS a ON a.turn_id = w.turn_id AND a.task_session_id = w.task_session_id
          OFFSET 0) AS v
   WHERE NOT v.shadowed
   GROUP BY v.task_session_id, v.turn_id
)
SELECT (CASE WHEN p.first_at < :since!::timestamp THEN 'before_since'
             WHEN p.first_at >= :knownFrom::timestamp THEN 'known'
             ELSE 'unknown' END) AS "era!",
       p.subagents::text AS "subagents!",
       COUNT(*)::text AS "turns!",
       COUNT(CASE WHEN p.last_at >= :until!::timestamp THEN 1 END)::text AS "past_until!"
  FROM per_turn AS p
 GROUP BY 1, 2
 ORDER BY 1, 2;
