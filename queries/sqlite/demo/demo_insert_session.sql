/*
 * DEMO ONLY — the demo stands in for the host. The package itself never writes host rows
 * (DESIGN §3); Kandev creates task_sessions rows when a card starts a session. The demo
 * inserts them so its history has cards and sessions to hang subagents on.
 */
/* @returns exec */
/* @name demoInsertSession */
INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
VALUES (:id!, :taskId!, :state!, :createdAt!, :updatedAt!);
