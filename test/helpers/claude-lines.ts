// Synthetic Claude Code transcript lines for the importer's tests, in the shapes recorded from
// 2.1.335 (recordings/claude-code; docs/claude-code.md, "What Claude Code writes"): a builder per
// kind of line, each line at a whole second of 2026-01-01 UTC so a test can order them.

/** Transcript text: one JSON object a line. */
export const jsonl = (lines: readonly object[]): string => lines.map((l) => JSON.stringify(l) + '\n').join('');

/** The ISO instant `second` seconds into 2026-01-01 UTC. */
export const secondOf = (second: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

/** The line builders of one session (its cwd the task; every line of turn `p1` unless a test overrides it). */
export function claudeLines(sessionId: string, cwd = '/home/dev/app') {
  const line = (second: number, fields: object) => ({ sessionId, cwd, promptId: 'p1', timestamp: secondOf(second), ...fields });
  /** One response (an assistant line) with its usage. */
  const response = (second: number, id: string, content: object[] = [], usage: object = { input_tokens: 10, output_tokens: 5 }) =>
    line(second, { type: 'assistant', message: { id, model: 'claude-x', role: 'assistant', usage, content } });
  return {
    line,
    response,
    /** A response whose one block is a tool use (`Agent` unless named), its id `msg_<tool use id>`. */
    launch: (second: number, id: string, input: object, name = 'Agent') => response(second, `msg_${id}`, [{ type: 'tool_use', id, name, input }]),
    /** A tool result; in a main transcript a launch's carries toolUseResult. */
    result: (second: number, id: string, toolUseResult?: unknown) =>
      line(second, {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
        ...(toolUseResult !== undefined ? { toolUseResult } : {}),
      }),
    /** A queued `<task-notification>` naming a tool use, `body` its other tags; a queue operation carries no promptId. */
    notice: (second: number, toolUseId: string, body: string) => ({
      ...line(second, {
        type: 'queue-operation',
        operation: 'enqueue',
        content: `<task-notification>\n<task-id>t-${toolUseId}</task-id>\n<tool-use-id>${toolUseId}</tool-use-id>\n${body}\n</task-notification>`,
      }),
      promptId: undefined,
    }),
  };
}
