/*
 * DEMO report — sessions per card versus subagent contexts per card. task_sessions alone says
 * every card ran exactly one context (spec § Why: "sessions per card is exactly 1.0"); the
 * subagent rows show how many contexts each card's work was actually spread across.
 */
/* @name demoContextsPerCard */
SELECT t.task_id AS "task_id!",
       COUNT(DISTINCT t.id) AS "sessions!::bigint",
       COUNT(s.id) AS "subagent_contexts!::bigint"
  FROM task_sessions AS t
  LEFT JOIN task_session_subagents AS s ON s.task_session_id = t.id
 GROUP BY t.task_id
 ORDER BY t.task_id;
