// Claude Code through @agentclientprotocol/claude-agent-acp (and @zed-industries/claude-agent-acp).
// Measured on real runs (recordings/acp/claude-*.jsonl):
// - the subagent tool is `Agent` (older: `Task`), named by `_meta.claudeCode.toolName` on every
//   update; the first `tool_call` has `rawInput: {}` and title "Task";
// - description/prompt/subagent_type arrive on later status-less `tool_call_update`s (partial,
//   then full);
// - all usage arrives in `_meta.claudeCode.toolResponse` on a status-less update just before
//   the terminal one (`totalTokens` is the subagent's last response, not a sum); `agentType`
//   fills subagent_type only when the input named none; `resolvedModel` is the model;
// - background launches report `status: 'async_launched'`, `isAsync: true`, no usage;
// - the subagent's own tool calls carry `_meta.claudeCode.parentToolUseId` and are not
//   subagents unless they are `Agent` calls themselves (a nested launch);
// - a refused launch (Claude Code 2.1.335: the auto-mode check, a permission rule, the user) is a
//   `failed` update whose toolResponse is `{decisionReasonType, decisionReason, message}` and
//   whose content is "Permission denied: <decisionReason>" (→ result_text, the reason), then a
//   status-less update after it with `_meta.claudeCode.nonExecutionKind` (`automode-blocked`,
//   `automode-unavailable`, `permission-rule`, `user-rejected`; `interrupted`/`cancelled` for a
//   run that was stopped): Claude's own word for why the call did not run, the agent status of a
//   launch that has no subagent to report one (→ status, agent_status), stored verbatim. That
//   update is the call's last: the recognizer keeps nothing of it.
// `Monitor` and `ScheduleWakeup` are deliberately not subagents.
import type { SubagentTaskPayload } from '../../types.js';
import { isTerminalToolStatus } from '../../terminal-tool-status.js';
import { bool, contentText, field, metric, object, text, type Json } from '../wire.js';
import type { AgentShape, UpdateFacts } from './shape.js';

const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);
/** Claude Code's built-in tools (its SDK's BUILTIN_TOOL_NAMES, 2.1.335) that name an agent without launching one. */
const ORDINARY_AGENT_TOOLS: ReadonlySet<string> = new Set(['ListAgents', 'SubagentHandback']);

function claudeMeta(update: Json): Json | undefined {
  return object(field(field(update, '_meta'), 'claudeCode'));
}

export const claudeShape: AgentShape = {
  agent: 'claude',
  ordinaryToolNames: ORDINARY_AGENT_TOOLS,
  classify(update) {
    const name = text(field(claudeMeta(update), 'toolName'));
    return name === undefined ? undefined : SUBAGENT_TOOLS.has(name);
  },
  read(update) {
    const meta = claudeMeta(update);
    const input = field(update, 'rawInput');
    const response = object(field(meta, 'toolResponse'));
    const nonExecution = text(field(meta, 'nonExecutionKind'));
    const ended = nonExecution !== undefined || isTerminalToolStatus(text(field(update, 'status')));
    const payload: SubagentTaskPayload = {
      description: text(field(input, 'description')) ?? text(field(response, 'description')),
      prompt: text(field(input, 'prompt')) ?? text(field(response, 'prompt')),
      subagent_type: text(field(input, 'subagent_type')),
      is_async: field(input, 'run_in_background') === true ? true : bool(field(response, 'isAsync')),
      status: text(field(response, 'status')) ?? nonExecution,
      agent_id: text(field(response, 'agentId')),
      model: text(field(response, 'resolvedModel')),
      total_tokens: metric(field(response, 'totalTokens')),
      tool_use_count: metric(field(response, 'totalToolUseCount')),
      duration_ms: metric(field(response, 'totalDurationMs')),
      output_file: text(field(response, 'outputFile')),
      // The tool call's own content is the prompt until the call ends (the adapter shows the input
      // there): only the content of a terminal frame, or of the update Claude sends after one
      // (nonExecutionKind), is a result (a refusal's "Permission denied: …", then its reason).
      result_text: contentText(field(response, 'content')) ?? (ended ? contentText(field(update, 'content')) : undefined),
    };
    const facts: UpdateFacts = { payload, fallbackSubagentType: text(field(response, 'agentType')) };
    const parent = text(field(meta, 'parentToolUseId'));
    if (parent !== undefined) facts.parentToolCallId = parent;
    if (nonExecution !== undefined) facts.last = true;
    return facts;
  },
};
