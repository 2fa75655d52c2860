/*
 * AC-13: one turn's subagent contexts (its fan-out), in the order observed_at, tool_call_id, agent_execution_id, the
 * last two in byte order; id is never a tiebreak. Timestamps come back in the package's
 * one output form 'YYYY-MM-DDTHH:MM:SS.ffffffZ'. Stored values may be in any Go-driver
 * form (legacy rows keep theirs), so each is first brought to the fixed-width UTC form
 * 'YYYY-MM-DD HH:MM:SS.fffffffff' ("utc9", docs/timestamps.md): the seconds through
 * strftime of the fraction-less text plus its offset (exact: no fraction is parsed), the
 * fraction copied digit for digit. Ordering uses that form too, never the raw text.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): utc9.
 */
/* @name listSubagentContextsByTurn */
SELECT s.id, s.task_session_id, s.task_id, s.turn_id, s.agent_execution_id, s.tool_call_id,
       s.parent_tool_call_id, s.subagent_type, s.description, s.agent_id, s.child_session_id,
       s.model, s.agent_status, s.tool_status, s.is_async, s.total_tokens, s.tool_use_count,
       s.duration_ms, s.source,
       replace(substr({{utc9(s.observed_at)}}, 1, 26), ' ', 'T') || 'Z' AS "observed_at!::string",
       replace(substr({{utc9(s.settled_at)}}, 1, 26), ' ', 'T') || 'Z' AS "settled_at?::string",
       replace(substr({{utc9(s.updated_at)}}, 1, 26), ' ', 'T') || 'Z' AS "updated_at!::string"
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
   AND s.turn_id = :turnId!
 ORDER BY {{utc9(s.observed_at)}}, s.tool_call_id, s.agent_execution_id;
