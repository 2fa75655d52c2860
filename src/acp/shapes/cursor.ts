// Cursor's agent: a subagent call has `rawInput._toolName == "task"`; its result has
// `rawOutput.{durationMs, isBackground}` (isBackground is is_async). Cursor's agent is not on
// npm, so these shapes come from the measurements (test/acp-cursor-auggie.test.ts).
// Cursor also sends `cursor/task` as an agent → client request (readCursorTask below).
import type { SubagentTaskPayload } from '../../types.js';
import { bool, contentText, field, metric, object, text, type Json } from '../wire.js';
import type { AgentShape } from './shape.js';

export const cursorShape: AgentShape = {
  agent: 'cursor',
  classify(update) {
    const name = text(field(field(update, 'rawInput'), '_toolName'));
    return name === undefined ? undefined : name.toLowerCase() === 'task';
  },
  read(update) {
    const input = field(update, 'rawInput');
    const output = object(field(update, 'rawOutput'));
    return {
      payload: {
        description: text(field(input, 'description')),
        prompt: text(field(input, 'prompt')),
        subagent_type: text(field(input, 'subagent_type')) ?? text(field(input, 'subagentType')),
        duration_ms: metric(field(output, 'durationMs')),
        is_async: bool(field(output, 'isBackground')),
        result_text: contentText(field(update, 'content')),
      },
    };
  },
};

/**
 * Cursor's agent → client request `cursor/task {toolCallId, agentId, description, model,
 * prompt}`: the model and agent id its Task tool call lacks, joined to the call by toolCallId.
 */
export function readCursorTask(params: Json): { toolCallId: string; payload: SubagentTaskPayload } | undefined {
  const toolCallId = text(field(params, 'toolCallId'));
  if (toolCallId === undefined) return undefined;
  return {
    toolCallId,
    payload: {
      agent_id: text(field(params, 'agentId')),
      model: text(field(params, 'model')),
      description: text(field(params, 'description')),
      prompt: text(field(params, 'prompt')),
    },
  };
}
