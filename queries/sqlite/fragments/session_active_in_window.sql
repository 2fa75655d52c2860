/*
 * session_active_in_window(x): session x has a subagent row observed, or a message created,
 * inside the report's window [:since, :until) — the rule by which a windowed report takes a
 * session's usage ledger whole (the ledger holds no time per response). True for every session
 * when the report has no window ('' … '~'). The bare-column bounds (:sinceFloor, :untilCeil)
 * let each EXISTS seek the (session, time) indexes; the utc9 comparison decides exactly.
 * One definition for the ledger's statements (report_usage_ledger, report_usage_ledger_sessions).
 */
((:since! = '' AND :until! = '~')
 OR EXISTS (SELECT 1 FROM task_session_subagents AS s
             WHERE s.task_session_id = x
               AND s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
               AND (:since! = '' OR {{utc9(s.observed_at)}} >= :since!)
               AND (:until! = '~' OR {{utc9(s.observed_at)}} < :until!))
 OR EXISTS (SELECT 1 FROM task_session_messages AS m
             WHERE m.task_session_id = x
               AND m.created_at >= :sinceFloor! AND m.created_at < :untilCeil!
               AND (:since! = '' OR {{utc9(m.created_at)}} >= :since!)
               AND (:until! = '~' OR {{utc9(m.created_at)}} < :until!)))
