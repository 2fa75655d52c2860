/*
 * DEMO ONLY — the demo stands in for the host. Kandev updates a tool call's message in place
 * as later frames arrive, looking it up by (session, tool_call_id) only; that is why a
 * tool_call_id reused by a newer execution lands on the SAME message row while this package
 * keeps one subagent row per execution (spec AC-28, AC-32).
 */
/* @returns exec */
/* @name demoUpdateMessageMetadata */
UPDATE task_session_messages
   SET metadata = :metadata, updated_at = :updatedAt!::timestamp
 WHERE id = :id!;
