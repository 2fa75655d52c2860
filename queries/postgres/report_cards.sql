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
 * Window (AC-24e, docs/timestamps.md): the same exact timestamp comparison on created_at and
 * observed_at as report_row_counts.sql, independent of the session TimeZone. A window with a
 * start probes only the sessions that have a subagent row or a message in it, found through
 * idx_subagents_observed_at and idx_messages_created_at, so the cost follows the window, not
 * the history; without a start ('-infinity') every session is a candidate (a one-time
 * filter picks the branch, in custom and generic plans alike). Each candidate is one probe
 * of idx_subagents_session_id and, only when it has no subagent row in the window, one of
 * idx_messages_session_created (task_session_id, created_at): no scan of either table. The
 * per-session activity is MATERIALIZED (one small row per session) so each probe runs once,
 * not once per use.
 */
/* @returns one */
/* @name reportCards */
WITH candidates AS (
  SELECT t.id, t.task_id FROM task_sessions AS t WHERE :since!::timestamp = '-infinity'
  UNION ALL
  SELECT t.id, t.task_id
    FROM task_sessions AS t
   WHERE :since!::timestamp <> '-infinity'
     -- = ANY (ARRAY(…)), not IN (…): the window's sessions are computed first and each is
     -- looked up by task_sessions' primary key. As a semi-join the planner sized the set by
     -- the window's rows (2,623 for 24 sessions on the sparse 4M-message store) and hashed it
     -- against a scan of every session, so the cost grew with the history (2.3 ms → 4.2 ms
     -- from 2k to 33k sessions for the same 2,500 newest messages).
     AND t.id = ANY (ARRAY(SELECT s.task_session_id FROM task_session_subagents AS s
                            WHERE s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp
                           UNION
                           SELECT m.task_session_id FROM task_session_messages AS m
                            WHERE m.created_at >= :since!::timestamp AND m.created_at < :until!::timestamp))
), active AS MATERIALIZED (
  SELECT t.task_id,
         (CASE WHEN EXISTS (SELECT 1 FROM task_session_subagents AS s
                             WHERE s.task_session_id = t.id
                          AND s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp) THEN 2
               WHEN EXISTS (SELECT 1 FROM task_session_messages AS m
                             WHERE m.task_session_id = t.id
                          AND m.created_at >= :since!::timestamp AND m.created_at < :until!::timestamp) THEN 1
               ELSE 0 END) AS activity
    FROM candidates AS t
   WHERE (:taskIds::text IS NULL OR t.task_id IN (SELECT jsonb_array_elements_text(:taskIds::text::jsonb)))
)
SELECT COUNT(DISTINCT act.task_id)::text AS "tasks!",
       COUNT(*)::text AS "sessions!",
       COUNT(DISTINCT CASE WHEN act.activity = 2 THEN act.task_id END)::text AS "tasks_with_subagents!",
       COUNT(CASE WHEN act.activity = 2 THEN 1 END)::text AS "sessions_with_subagents!"
  FROM active AS act
 WHERE act.activity > 0;
