/*
 * shadowed_backfill(x): row x (an alias of task_session_subagents) is a backfilled row whose
 * invocation a row from another source already records: same task_session_id and
 * tool_call_id, source <> 'backfill'. AC-22 names the case: a subagent captured live with a
 * real execution id before the backfill ran gets a second, 'unknown' row from the backfill,
 * under a different key, so both exist. The report counts that invocation once, by the other
 * row, and leaves x out of its fan-out, token, type and card figures (report_row_counts.sql
 * counts such rows, so the views can disclose the split AC-25 asks for). Live rows that differ
 * only in execution are separate invocations and never shadow each other. Only a backfilled
 * row is probed, each once, by the upsert key's unique index (or idx_subagents_session_id),
 * whose first column is task_session_id: a session's few rows, never the table. OFFSET 0
 * keeps it a probe: without it PostgreSQL may turn the EXISTS into a hashed subplan, which
 * reads the whole table once to answer a window of rows (it estimates a probe per window row,
 * not per backfilled one), and did so on test/report-plans.test.ts's store after ANALYZE.
 */
(x.source = 'backfill'
 AND EXISTS (SELECT 1 FROM task_session_subagents AS twin
              WHERE twin.task_session_id = x.task_session_id
                AND twin.tool_call_id = x.tool_call_id
                AND twin.source <> 'backfill'
             OFFSET 0))
