// A scripted, local Anthropic-compatible Messages API for the real-agent runs: the agents
// under test talk to it on 127.0.0.1 inside a loopback-only network namespace, so nothing
// leaves the machine and every run is the same. It answers streaming (SSE) and JSON requests
// and /v1/messages/count_tokens, and plays one script:
// - the main conversation (its first user message names SCRIPT_MARKER) launches the subagents
//   the run asks for, in ONE assistant message (parallel tool_use blocks), then ends its turn
//   once every launch has a tool_result; a later prompt that says FOLLOW_UP_MARKER launches
//   FOLLOW_UP_LAUNCH (a multi-prompt session: test/agents/claude-transcripts.ts);
// - a subagent whose prompt says NESTED_MARKER launches one subagent of its own first;
// - a subagent whose prompt says READ_MARKER calls a plain tool (Read) first: a tool call on
//   the ACP stream that is not a subagent;
// - a subagent offered `SubagentHandback` (Claude Code 2.1.3xx: only a report delivered through it
//   reaches the caller) ends its work with that call, as a model told so does;
// - every other request (subagents, titles, the permission classifier) gets a short text answer
//   (`<severity>3</severity>` where the request asks for a severity);
// - a request that asks for the server-side auto-mode check (Claude Code 2.1.33x: `safeguards:
//   [{type: 'dangerous_tool_use', …}]`) gets its verdict, every tool use of the answer
//   `not_flagged`, as the real API does: `delta.safeguard_results` on the stream's message_delta,
//   `safeguard_results` on a JSON message. Without it Claude Code refuses every call that needs
//   the check ("Classifier unavailable"), Agent included. A launch whose prompt says
//   REFUSE_MARKER is `flagged` instead: Claude Code refuses it (a refused launch on the wire).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequest, startFakeApi, type RunningFakeApi } from './fake-api-server.js';

export const SCRIPT_MARKER = 'SUBAGENT-CONTEXT-FANOUT';
export const NESTED_MARKER = 'NESTED-LAUNCH';
export const READ_MARKER = 'READ-FIRST';
export const REFUSE_MARKER = 'REFUSE-LAUNCH';
/** A later prompt of the main conversation that launches FOLLOW_UP_LAUNCH (a multi-prompt session). */
export const FOLLOW_UP_MARKER = 'FOLLOW-UP-LAUNCH';
export const FOLLOW_UP_LAUNCH: ScriptedLaunch = { description: 'Follow-up check', prompt: 'Check the follow-up change.' };

export interface FakeMessagesApiOptions {
  /**
   * Usage as the real API streams it, different on every response: message_start carries the
   * input and cache figures with output_tokens 1, message_delta the final output_tokens
   * (recordings/claude-code: the transcripts' usage must be worth summing). Off: 120/30 flat.
   */
  varyingUsage?: boolean;
}

/** One subagent the main conversation launches. */
export interface ScriptedLaunch {
  description: string;
  prompt: string;
  /** 'agent-default': the input names no background flag at all (Qwen Code's default is background). */
  background?: boolean | 'agent-default';
}

export type FakeMessagesApi = RunningFakeApi;

interface ToolSpec {
  name: string;
  input_schema?: { properties?: Record<string, { enum?: unknown[] }> };
}
interface MessageParam {
  role: string;
  content: string | { type: string; text?: string; tool_use_id?: string; content?: unknown; name?: string }[];
}
interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: ToolSpec[];
  messages?: MessageParam[];
  system?: unknown;
  safeguards?: { type?: string }[];
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const SUBAGENT_TOOLS = ['Agent', 'Task', 'task', 'agent'];

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value !== null && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return '';
}

function firstUserText(req: MessagesRequest): string {
  const first = req.messages?.find((m) => m.role === 'user');
  return first ? textOf(first.content) : '';
}

function toolResultCount(req: MessagesRequest): number {
  let n = 0;
  for (const m of req.messages ?? []) if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') n++;
  return n;
}

/** The last user message, when it is a prompt (text) rather than tool results. */
function lastUserPrompt(req: MessagesRequest): string {
  const last = [...(req.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!last || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return '';
  return textOf(last.content);
}

function calledTool(req: MessagesRequest, name: string): boolean {
  return (req.messages ?? []).some(
    (m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use' && b.name === name),
  );
}

export async function startFakeMessagesApi(launches: ScriptedLaunch[], workFile: string, options: FakeMessagesApiOptions = {}): Promise<FakeMessagesApi> {
  const requests: FakeMessagesApi['requests'] = [];
  let ids = 0;
  const toolUseId = () => `toolu_fake${String(++ids).padStart(4, '0')}`;

  function launchInput(tool: ToolSpec, launch: ScriptedLaunch): Record<string, unknown> {
    const props = tool.input_schema?.properties ?? {};
    const type = props.subagent_type?.enum?.find((v) => v === 'general-purpose' || v === 'general') ?? (tool.name === 'task' ? 'general' : 'general-purpose');
    const input: Record<string, unknown> = { description: launch.description, prompt: launch.prompt, subagent_type: type };
    // Explicit both ways: newer Claude Code runs subagents in the background by default.
    if (launch.background !== 'agent-default') for (const key of ['run_in_background', 'background']) if (key in props) input[key] = launch.background === true;
    return input;
  }

  function answer(req: MessagesRequest): { blocks: Block[]; stop: string } {
    const tools = req.tools ?? [];
    const subagentTool = tools.find((t) => SUBAGENT_TOOLS.includes(t.name));
    const first = firstUserText(req);
    const results = toolResultCount(req);
    if (subagentTool && first.includes(SCRIPT_MARKER) && lastUserPrompt(req).includes(FOLLOW_UP_MARKER))
      return { blocks: [{ type: 'tool_use', id: toolUseId(), name: subagentTool.name, input: launchInput(subagentTool, FOLLOW_UP_LAUNCH) }], stop: 'tool_use' };
    if (subagentTool && first.includes(SCRIPT_MARKER)) {
      if (results === 0)
        return {
          blocks: launches.map((l) => ({ type: 'tool_use', id: toolUseId(), name: subagentTool.name, input: launchInput(subagentTool, l) })),
          stop: 'tool_use',
        };
      return { blocks: [{ type: 'text', text: 'All reviews are in. Done.' }], stop: 'end_turn' };
    }
    if (subagentTool && first.includes(NESTED_MARKER) && results === 0) {
      const nested = { description: 'Nested check', prompt: 'Check one detail and answer in one line.' };
      return { blocks: [{ type: 'tool_use', id: toolUseId(), name: subagentTool.name, input: launchInput(subagentTool, nested) }], stop: 'tool_use' };
    }
    const read = tools.find((t) => t.name === 'Read' || t.name === 'read' || t.name === 'read_file');
    if (read && first.includes(READ_MARKER) && results === 0) {
      const key = read.input_schema?.properties && 'filePath' in read.input_schema.properties ? 'filePath' : 'file_path';
      return { blocks: [{ type: 'tool_use', id: toolUseId(), name: read.name, input: { [key]: workFile } }], stop: 'tool_use' };
    }
    const all = `${textOf(req.system)}\n${textOf(req.messages)}`;
    if (/severity/i.test(all)) return { blocks: [{ type: 'text', text: '<severity>3</severity>' }], stop: 'end_turn' };
    if (!tools.length) return { blocks: [{ type: 'text', text: 'Review fan-out' }], stop: 'end_turn' };
    const handback = tools.find((t) => t.name === 'SubagentHandback');
    if (handback && !calledTool(req, handback.name))
      return { blocks: [{ type: 'tool_use', id: toolUseId(), name: handback.name, input: { message: 'Reviewed: no findings.' } }], stop: 'tool_use' };
    return { blocks: [{ type: 'text', text: 'Reviewed: no findings.' }], stop: 'end_turn' };
  }

  /** The verdicts a request's `safeguards` asks for, in the shape Claude Code parses; undefined when it asks none. */
  function safeguardResults(req: MessagesRequest, blocks: Block[]): object[] | undefined {
    if (!Array.isArray(req.safeguards) || !req.safeguards.some((s) => s?.type === 'dangerous_tool_use')) return undefined;
    const verdict = (b: Block & { type: 'tool_use' }) =>
      typeof b.input.prompt === 'string' && b.input.prompt.includes(REFUSE_MARKER)
        ? { type: 'evaluated', outcome: 'flagged', explanation: 'The scripted check refuses this launch.' }
        : { type: 'evaluated', outcome: 'not_flagged' };
    const verdicts = Object.fromEntries(blocks.flatMap((b) => (b.type === 'tool_use' ? [[b.id, verdict(b)]] : [])));
    return [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: verdicts } }];
  }

  const flatUsage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  let responses = 0;
  // With varyingUsage, ids unique across runs and a request-id header, as the real API gives:
  // usage reporters deduplicate responses by message id and request id.
  const tag = options.varyingUsage ? `${randomBytes(6).toString('hex')}_` : '';
  const messageId = () => `msg_${tag}${++ids}`;
  /** The usage of the next response: the full figures, and what message_start streams. */
  function nextUsage(): { usage: typeof flatUsage; start: typeof flatUsage } {
    if (!options.varyingUsage) return { usage: flatUsage, start: flatUsage };
    const n = ++responses;
    const usage = { input_tokens: 100 + 7 * n, output_tokens: 20 + 3 * n, cache_creation_input_tokens: 40 * (n % 3), cache_read_input_tokens: 500 + 11 * n };
    return { usage, start: { ...usage, output_tokens: 1 } };
  }

  function sendJson(res: ServerResponse, body: unknown) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  function sendStream(res: ServerResponse, model: string, blocks: Block[], stop: string, safeguards: object[] | undefined) {
    const { usage, start } = nextUsage();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...(tag ? { 'request-id': `req_${tag}${ids + 1}` } : {}) });
    const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: { id: messageId(), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: start },
    });
    blocks.forEach((b, index) => {
      if (b.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
      } else {
        event('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
      }
      event('content_block_stop', { index });
    });
    const delta = { stop_reason: stop, stop_sequence: null, ...(safeguards ? { safeguard_results: safeguards } : {}) };
    event('message_delta', { delta, usage: { output_tokens: usage.output_tokens } });
    event('message_stop', {});
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const { path, body } = await readRequest<MessagesRequest>(req, requests);
    if (path.endsWith('/count_tokens')) return sendJson(res, { input_tokens: 100 });
    if (!path.endsWith('/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }));
    }
    const model = body.model ?? 'claude-sonnet-4-5';
    const { blocks, stop } = answer(body);
    const safeguards = safeguardResults(body, blocks);
    if (body.stream) return sendStream(res, model, blocks, stop, safeguards);
    const message = {
      id: messageId(),
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage: nextUsage().usage,
    };
    return sendJson(res, safeguards ? { ...message, safeguard_results: safeguards } : message);
  }

  return startFakeApi(requests, handle);
}
