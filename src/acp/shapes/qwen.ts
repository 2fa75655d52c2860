// Qwen Code (`qwen --acp`). Measured on real runs (recordings/acp/qwen-fanout.jsonl):
// - every tool call carries `_meta.toolName` and `_meta.provenance` (`builtin`, `mcp`,
//   `subagent`); the subagent tool is `agent` (kind `other`, title "Agent", then
//   "Agent: <description>"); the first `tool_call` has `rawInput: {}`, the `in_progress` update
//   the full input {description, prompt, subagent_type, run_in_background};
// - while a foreground subagent runs, its launching call gets `in_progress` updates whose
//   content is a progress line ("ReadFile: NOTES.md"), marked `_meta.subagentProgress`: not
//   the result, and without `_meta.toolName`;
// - the subagent's own tool calls carry `_meta.parentToolCallId` (the launching call) and
//   `provenance: "subagent"`: not subagents, unless they are `agent` calls themselves (a nested
//   launch, always in the foreground);
// - the terminal frame's `rawOutput` (`type: "task_execution"`) has `subagentName`, `status`,
//   `executionMode` and `executionSummary {totalTokens, totalToolCalls, totalDurationMs}`:
//   totals SUMMED over the subagent's rounds (its own model calls; a nested subagent's are in
//   the nested row), unlike Claude Code's last response; no model anywhere on the wire.
//   Qwen Code 0.24 adds the split {rounds, inputTokens, outputTokens, thoughtTokens,
//   cachedTokens}: the usage ledger's row (summaryUsage below; docs/acp-intake.md "Usage ledger");
// - a background launch (Qwen's default for a top-level launch) ends its tool call at once
//   (`completed`, `rawOutput.status: "background"`, no summary): that is the launch, not the
//   subagent's end, so the frame is read status-less and the row stays open. Its end arrives
//   later as an `agent_message_chunk` with `_meta.backgroundTask {taskId, toolUseId, status,
//   kind: "agent"}` (readQwenBackgroundCompletion), sent twice (`source`
//   `background_task_completed`, then `background_notification`), and again on every chunk of
//   the model's answer to it (`background_notification_response`, skipped here).
import type { SubagentTaskPayload, SubagentUsage } from '../../types.js';
import { bool, contentText, field, metric, object, text, type Json } from '../wire.js';
import type { AgentShape, UpdateFacts } from './shape.js';

const AGENT_TOOL = 'agent';

/** `_meta` of a Qwen tool-call update: a `toolName` beside a `provenance` (both Qwen's own keys). */
function qwenToolName(update: Json): string | undefined {
  const meta = object(field(update, '_meta'));
  if (typeof field(meta, 'provenance') !== 'string') return undefined;
  return text(field(meta, 'toolName'));
}

/** `output_file: <path>` in a background launch's answer; indexOf, not a regex: texts may be huge. */
function outputFile(result: string | undefined): string | undefined {
  if (result === undefined) return undefined;
  const at = result.lastIndexOf('\noutput_file: ');
  if (at < 0) return undefined;
  const start = at + '\noutput_file: '.length;
  const end = result.indexOf(' ', start);
  return text(result.slice(start, end < 0 ? undefined : end).trim());
}

/**
 * The ledger's figures from an executionSummary, or undefined when it has no token split.
 * Qwen Code sums Gemini-style usage (its subagent statistics, read in 0.24.4): `inputTokens` is
 * the whole prompt, cache reads (`cachedTokens`) included — and, behind an Anthropic-compatible
 * API, cache writes too — while the ledger's input_tokens is Anthropic's (cache reads apart):
 * so input_tokens = inputTokens − cachedTokens, and cache_creation_input_tokens stays NULL
 * (not reported apart). `thoughtTokens` is not added: behind OpenAI- and Anthropic-compatible
 * APIs Qwen counts thinking inside outputTokens already. requests = rounds (model calls).
 */
function summaryUsage(summary: unknown): SubagentUsage | undefined {
  const input = metric(field(summary, 'inputTokens'));
  const output = metric(field(summary, 'outputTokens'));
  const cached = metric(field(summary, 'cachedTokens'));
  if (input === undefined && output === undefined && cached === undefined) return undefined;
  return { requests: metric(field(summary, 'rounds')), input_tokens: uncached(input, cached), output_tokens: output, cache_read_input_tokens: cached };
}

/** inputTokens less the cache reads it includes; undefined (not reported) when the two do not subtract to a count. */
function uncached(input: number | bigint | undefined, cached: number | bigint | undefined): number | bigint | undefined {
  if (input === undefined || cached === undefined || cached === 0 || cached === 0n) return input; // nothing to take out (the store checks the figure)
  const count = (n: number | bigint) => (typeof n === 'bigint' ? n : Number.isSafeInteger(n) ? BigInt(n) : undefined);
  const i = count(input);
  const c = count(cached);
  if (i === undefined || c === undefined || c < 0n || c > i) return undefined;
  const rest = i - c;
  return rest <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(rest) : rest;
}

export const qwenShape: AgentShape = {
  agent: 'qwen',
  classify(update) {
    const name = qwenToolName(update);
    return name === undefined ? undefined : name === AGENT_TOOL;
  },
  read(update) {
    const meta = object(field(update, '_meta'));
    const input = field(update, 'rawInput');
    const output = object(field(update, 'rawOutput'));
    const execution = field(output, 'type') === 'task_execution' ? output : undefined;
    const summary = field(execution, 'executionSummary');
    const mode = field(execution, 'executionMode');
    const background = field(input, 'run_in_background') === true || mode === 'background';
    const foreground = bool(field(input, 'run_in_background')) === false || mode === 'foreground';
    // A progress line is not the result; a background launch's answer is the launch notice.
    const content = field(meta, 'subagentProgress') === true ? undefined : contentText(field(update, 'content'));
    const launched = field(execution, 'status') === 'background';
    const payload: SubagentTaskPayload = {
      description: text(field(input, 'description')) ?? text(field(execution, 'taskDescription')),
      prompt: text(field(input, 'prompt')) ?? text(field(execution, 'taskPrompt')),
      subagent_type: text(field(input, 'subagent_type')),
      status: text(field(execution, 'status')),
      is_async: background ? true : foreground ? false : undefined,
      total_tokens: metric(field(summary, 'totalTokens')),
      tool_use_count: metric(field(summary, 'totalToolCalls')),
      duration_ms: metric(field(summary, 'totalDurationMs')),
      result_text: launched ? undefined : (text(field(execution, 'result')) ?? content),
      output_file: launched ? outputFile(content) : undefined,
    };
    const facts: UpdateFacts = { payload, fallbackSubagentType: text(field(execution, 'subagentName')) };
    const usage = summaryUsage(summary);
    if (usage !== undefined) facts.usage = usage;
    const parent = text(field(meta, 'parentToolCallId'));
    if (parent !== undefined) {
      facts.parentToolCallId = parent;
      facts.parentInSession = true; // Qwen names a call of the update's own session
    }
    if (launched) facts.toolStatus = null; // the launch ended, not the subagent: its completion notice settles it
    return facts;
  },
};

/** A background subagent's end, as Qwen reports it on an `agent_message_chunk`. */
export interface QwenBackgroundCompletion {
  /** The launching `agent` tool call. */
  toolCallId: string;
  /** The tool status it settles with: Qwen's `completed`, `failed` or `cancelled`, verbatim. */
  toolStatus: string;
  payload: SubagentTaskPayload;
}

/**
 * The completion notice of a background subagent on an `agent_message_chunk`, else undefined.
 * Cheap on ordinary chunks (the most frequent update): one `_meta` lookup.
 */
export function readQwenBackgroundCompletion(update: Json): QwenBackgroundCompletion | undefined {
  const meta = object(field(update, '_meta'));
  if (!meta) return undefined;
  const task = object(field(meta, 'backgroundTask'));
  if (!task || field(task, 'kind') !== 'agent') return undefined;
  // The model's answer to the notice repeats it on every chunk: the notice itself suffices.
  if (field(meta, 'source') === 'background_notification_response') return undefined;
  const toolCallId = text(field(task, 'toolUseId'));
  const status = text(field(task, 'status'));
  if (toolCallId === undefined || status === undefined) return undefined;
  return { toolCallId, toolStatus: status, payload: { status, agent_id: text(field(task, 'taskId')), is_async: true } };
}
