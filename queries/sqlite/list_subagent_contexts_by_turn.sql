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
 * codegen (the generated module shows the whole statement): subagent_row (derived from
 * schema/sqlite/002_task_session_subagents.sql: every column, in DDL order), utc9.
 */
/* @returns many */
/* @name listSubagentContextsByTurn */
SELECT {{subagent_row(s)}}
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
   AND s.turn_id = :turnId!
 ORDER BY {{utc9(s.observed_at)}}, s.tool_call_id, s.agent_execution_id;
