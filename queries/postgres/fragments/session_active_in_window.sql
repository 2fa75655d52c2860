/*
 * session_active_in_window(x): session x has a subagent row observed, or a message created,
 * inside the report's window [:since, :until) — the rule by which a windowed report takes a
 * session's usage ledger whole (the ledger holds no time per response). True for every session
 * when the report has no window ('-infinity' … 'infinity'). Bounds are TIMESTAMP text rounded
 * up to the microsecond (src/postgres/report.ts), so the comparisons are exact.
 * One definition for the ledger's statements (report_usage_ledger, report_usage_ledger_sessions).
 */
((:since!::timestamp = '-infinity' AND :until!::timestamp = 'infinity')
 OR EXISTS (SELECT 1 FROM task_session_subagents AS s
             WHERE s.task_session_id = x
               AND s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp)
 OR EXISTS (SELECT 1 FROM task_session_messages AS m
             WHERE m.task_session_id = x
               AND m.created_at >= :since!::timestamp AND m.created_at < :until!::timestamp))
