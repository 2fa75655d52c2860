// Cursor's agent: a subagent call has `rawInput._toolName == "task"`; its result has
// `rawOutput.{durationMs, isBackground}` (isBackground is is_async). Cursor's agent is not on
// npm, so these shapes come from the measurements (test/acp-cursor-auggie.test.ts).
import { bool, contentText, field, metric, object, text } from '../wire.js';
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
