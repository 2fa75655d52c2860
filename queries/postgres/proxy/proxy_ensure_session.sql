/*
 * PROXY ONLY — `subagent-context proxy` is the host (issue 21): one task_sessions row per ACP
 * session, created the first time the proxy learns the session id (a session/new response, a
 * session/load request, or a subagent update on a session it had not seen). The id is the
 * ACP session id, the task is the session's cwd or --task. An existing row is left as it is:
 * a session loaded again keeps the task it was created with. UTC text typed TIMESTAMP.
 */
/* @returns exec */
/* @name proxyEnsureSession */
INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
VALUES (:id!, :taskId!, 'RUNNING', :at!::timestamp, :at!::timestamp)
ON CONFLICT (id) DO NOTHING;
