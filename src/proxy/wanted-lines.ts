// Which tapped lines are copied for the writer: byte tests on the raw line, so the relay path
// never runs JSON.parse and the lines that cannot matter are never copied. A line that passes
// is parsed in the writer process; one that fails is relayed only.

/** Client → agent: the requests that open a session and start a turn (identity). */
const CLIENT_NEEDLES = ['"session/new"', '"session/load"', '"session/prompt"'].map((n) => Buffer.from(n));
const UPDATE_NEEDLE = Buffer.from('"session/update"');
/**
 * The updates the recognizer reads (src/acp/recognizer.ts: tool_call, tool_call_update,
 * subagent_update, a child session's state_update and session_info_update, and Qwen Code's
 * background completion notice, an agent_message_chunk with `_meta.backgroundTask`). Other
 * message and thought chunks, the bulk of a session's traffic and its largest lines, are
 * relayed and never copied for the writer.
 */
const RECOGNIZED_UPDATE_NEEDLES = ['"tool_call', '"subagent_update"', '"state_update"', '"session_info_update"', '"backgroundTask"'].map((n) => Buffer.from(n));
/** Agent → client requests the recognizer reads: Cursor's `cursor/task`. */
const REQUEST_NEEDLES = ['"cursor/task"'].map((n) => Buffer.from(n));
/** Responses: session/new's carries the session id, session/prompt's ends the turn. */
const RESULT_NEEDLE = Buffer.from('"result"');

export function wantedFromClient(line: Buffer): boolean {
  return CLIENT_NEEDLES.some((n) => line.includes(n));
}

export function wantedFromAgent(line: Buffer): boolean {
  return (
    (line.includes(UPDATE_NEEDLE) && RECOGNIZED_UPDATE_NEEDLES.some((n) => line.includes(n))) ||
    line.includes(RESULT_NEEDLE) ||
    REQUEST_NEEDLES.some((n) => line.includes(n))
  );
}
