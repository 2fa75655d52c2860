/*
 * PROXY ONLY — the task a session belongs to, as stored: a session the store already has
 * (loaded again in a later proxy run, perhaps under another --task) keeps the task it was
 * created with, and its new message and subagent rows carry that task too.
 */
/* @returns maybe-one */
/* @name proxyReadSessionTask */
SELECT s.task_id AS "taskId!"
  FROM task_sessions AS s
 WHERE s.id = :id!;
