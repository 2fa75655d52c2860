/*
 * REPORT — cards: the "sessions per card" correction (spec § Why: sessions per card read
 * 1.0 while turns fanned out to three reviewers). Counts the sessions active in the window
 * (a message created in it, or a subagent row observed in it) and their tasks (cards), and
 * of those how many had a subagent row in the window. The caller puts the window's subagent
 * contexts beside them, so a card's contexts are its sessions plus its subagents.
 *
 * A session's task is task_sessions.task_id, the session's own task (the message row's
 * task_id may be ''). Scope (spec § Permissions): :taskIds, a JSON array, admits only
 * sessions whose task is listed; NULL admits every task.
 * Window (AC-24e, docs/timestamps.md): the same exact utc9 comparison on created_at and
 * observed_at as report_row_counts.sql. A window with a start probes only the sessions that
 * have a subagent row or a message inside its bare-column bounds (:sinceFloor/:untilCeil, the
 * floor's rows dropped on the index entry as in count_shortfall_since_capture.sql), found
 * through idx_subagents_observed_at and idx_messages_created_at: a superset of the active
 * sessions, so the cost follows the window, not the history. Without a start every session
 * is a candidate (the window is all history up to :until; reading each session's probes is
 * then cheaper than a pass over the messages). Each candidate is one probe of
 * idx_subagents_session_id and, only when it has no subagent row in the window, one of
 * idx_messages_session_created (task_session_id, created_at): no scan of either table. The
 * per-session activity is MATERIALIZED (one small row per session) so each probe runs once,
 * not once per use.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, utc9.
 */
/* @returns one */
/* @name reportCards */
WITH candidates AS (
  SELECT t.id, t.task_id FROM task_sessions AS t WHERE :since! = ''
  UNION ALL
  SELECT t.id, t.task_id
    FROM task_sessions AS t
   WHERE :since! <> ''
     AND t.id IN (SELECT s.task_session_id FROM task_session_subagents AS s
                   WHERE s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
                     AND {{before_since_text(s.observed_at)}}
                  UNION
                  SELECT m.task_session_id FROM task_session_messages AS m
                   WHERE m.created_at >= :sinceFloor! AND m.created_at < :untilCeil!
                     AND {{before_since_text(m.created_at)}})
), active AS MATERIALIZED (
  SELECT t.task_id,
         (CASE WHEN EXISTS (SELECT 1 FROM task_session_subagents AS s
                             WHERE s.task_session_id = t.id
                          AND s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
                          AND (:since! = '' OR {{utc9(s.observed_at)}} >= :since!)
                          AND (:until! = '~' OR {{utc9(s.observed_at)}} < :until!)) THEN 2
               WHEN EXISTS (SELECT 1 FROM task_session_messages AS m
                             WHERE m.task_session_id = t.id
                          AND m.created_at >= :sinceFloor! AND m.created_at < :untilCeil!
                          AND (:since! = '' OR {{utc9(m.created_at)}} >= :since!)
                          AND (:until! = '~' OR {{utc9(m.created_at)}} < :until!)) THEN 1
               ELSE 0 END) AS activity
    FROM candidates AS t
   WHERE (:taskIds IS NULL OR t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j))
)
SELECT COUNT(DISTINCT act.task_id) AS "tasks!",
       COUNT(*) AS "sessions!",
       COUNT(DISTINCT CASE WHEN act.activity = 2 THEN act.task_id END) AS "tasks_with_subagents!",
       COUNT(CASE WHEN act.activity = 2 THEN 1 END) AS "sessions_with_subagents!"
  FROM active AS act
 WHERE act.activity > 0;
