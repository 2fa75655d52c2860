// What a Claude Code transcript line says about subagents, read without trusting it
// (src/acp/wire.ts). Measured on recordings/claude-code (Claude Code 2.1.335):
// - an `assistant` line holds one content block of one response: `message.id`, `message.model`,
//   `message.usage` repeated on each line of the response; a launch is a `tool_use` block named
//   `Agent` (older: `Task`) whose input has description, prompt, subagent_type,
//   run_in_background and sometimes model;
// - a `user` line holding a `tool_result` for a launch carries `toolUseResult` in the main
//   transcript — the fields the ACP wire's toolResponse has (src/acp/shapes/claude.ts): status
//   (`completed`, `async_launched`), agentId, agentType, resolvedModel, totalTokens (the last
//   response's), totalToolUseCount, totalDurationMs, isAsync, outputFile; a nested launch's
//   result (in its parent subagent's transcript) has no toolUseResult;
// - a background subagent's end is a `queue-operation` (`enqueue`) whose content is a
//   `<task-notification>` naming its tool-use-id, status, subagent_tokens, tool_uses, duration_ms;
// - every line of a turn carries the prompt's `promptId`: the turn id.
// Prompts and results are never kept: only the spec's columns are read out of them.
import type { SubagentTaskPayload } from '../../types.js';
import { recordableId, storableText } from '../../identity.js';
import { bool, field, metric, object, text } from '../../acp/wire.js';
import type { JsonObject } from '../transcript-file.js';

const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);
/** Responses Claude Code makes up itself (an API error shown as a message): no request, no usage. */
const SYNTHETIC_MODEL = '<synthetic>';

export interface Response {
  messageId: string;
  model: string | undefined;
  usage: unknown;
}

export interface Launch {
  toolUseId: string;
  payload: SubagentTaskPayload;
}

export interface LaunchResult {
  toolUseId: string;
  failed: boolean;
  /** From toolUseResult; undefined when the line has none (a nested launch's result). */
  payload: SubagentTaskPayload | undefined;
}

export interface Notification {
  toolUseId: string;
  payload: SubagentTaskPayload;
}

/** The response an assistant line belongs to; undefined for any other line or a synthetic one. */
export function responseOf(line: JsonObject): Response | undefined {
  if (line.type !== 'assistant') return undefined;
  const message = object(line.message);
  // The id is kept in the progress row (the last response counted): one no column can hold (a NUL,
  // a lone surrogate) is read as absent, as on a line without one, on both dialects alike.
  const messageId = storableText(field(message, 'id'));
  const model = text(field(message, 'model'));
  if (!messageId || model === SYNTHETIC_MODEL) return undefined;
  // The model keys the ledger row: the store's rule for a usage's model (src/usage-normalization.ts),
  // so one the key cannot hold counts under 'unknown' on both dialects.
  return { messageId, model: recordableId(model) ?? undefined, usage: field(message, 'usage') };
}

function blocks(line: JsonObject): JsonObject[] {
  const content = field(object(line.message), 'content');
  return Array.isArray(content) ? content.filter((b): b is JsonObject => object(b) !== undefined) : [];
}

export function launchesOf(line: JsonObject): Launch[] {
  if (line.type !== 'assistant') return [];
  const launches: Launch[] = [];
  for (const block of blocks(line)) {
    const name = text(block.name);
    const id = text(block.id);
    if (block.type !== 'tool_use' || !id || !name || !SUBAGENT_TOOLS.has(name)) continue;
    const input = object(block.input);
    launches.push({
      toolUseId: id,
      payload: {
        description: text(field(input, 'description')),
        subagent_type: text(field(input, 'subagent_type')),
        model: text(field(input, 'model')),
        is_async: field(input, 'run_in_background') === true ? true : undefined,
      },
    });
  }
  return launches;
}

/** toolUseResult's fields as the spec's payload; undefined when it is not a subagent's result. */
export function resultPayload(result: unknown): SubagentTaskPayload | undefined {
  const r = object(result);
  if (!r || (text(r.agentId) === undefined && text(r.agentType) === undefined && metric(r.totalTokens) === undefined)) return undefined;
  return {
    description: text(r.description),
    subagent_type: text(r.agentType),
    status: text(r.status),
    agent_id: text(r.agentId),
    model: text(r.resolvedModel),
    total_tokens: metric(r.totalTokens),
    tool_use_count: metric(r.totalToolUseCount),
    duration_ms: metric(r.totalDurationMs),
    is_async: bool(r.isAsync),
    output_file: text(r.outputFile),
  };
}

/** The tool results a user line carries, with the subagent fields of its toolUseResult. */
export function resultsOf(line: JsonObject): LaunchResult[] {
  if (line.type !== 'user') return [];
  const payload = resultPayload(line.toolUseResult);
  const results: LaunchResult[] = [];
  for (const block of blocks(line)) {
    const id = text(block.tool_use_id);
    if (block.type !== 'tool_result' || !id) continue;
    results.push({ toolUseId: id, failed: block.is_error === true, payload });
  }
  return results;
}

const tag = (content: string, name: string): string | undefined => {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(content);
  return m ? m[1].trim() : undefined;
};
const count = (value: string | undefined): number | undefined => (value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined);

/** A background subagent's end, announced to the parent as a queued task notification. */
export function notificationOf(line: JsonObject): Notification | undefined {
  if (line.type !== 'queue-operation' || line.operation !== 'enqueue' || typeof line.content !== 'string') return undefined;
  const content = line.content;
  if (!content.startsWith('<task-notification>')) return undefined;
  const toolUseId = tag(content, 'tool-use-id');
  if (!toolUseId) return undefined;
  return {
    toolUseId,
    payload: {
      status: tag(content, 'status'),
      total_tokens: count(tag(content, 'subagent_tokens')),
      tool_use_count: count(tag(content, 'tool_uses')),
      duration_ms: count(tag(content, 'duration_ms')),
    },
  };
}
