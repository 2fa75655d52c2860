// A scripted, local OpenAI Responses API for Codex (through @agentclientprotocol/codex-acp): the
// `model_providers` entry of its config points at it on 127.0.0.1 inside the loopback-only
// network namespace. It answers POST /v1/responses with server-sent events (response.created,
// response.output_item.added/done per output item, response.completed with usage) and plays
// the same script as test/agents/fake-messages-api.ts, in Codex's tools:
// - the main conversation (its input names SCRIPT_MARKER) calls `spawn_agent` once per launch,
//   in ONE response (parallel function calls); once every spawn has its output it calls
//   `wait_agent` on the spawned agents until each has a final status, then ends its turn;
// - a subagent whose task says READ_MARKER runs one plain command first (`exec_command`
//   reading the work file): a tool call on the ACP stream that is not a subagent;
// - every other request (the subagents, any title or summary request) gets a short text answer.
// Every response reports the same usage, so the figures a test expects are the script's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequest, startFakeApi, type RunningFakeApi } from './fake-api-server.js';
import { READ_MARKER, SCRIPT_MARKER, type ScriptedLaunch } from './fake-messages-api.js';

export type FakeResponsesApi = RunningFakeApi;

interface ToolSpec {
  type?: string;
  name?: string;
  parameters?: { properties?: Record<string, unknown> };
  /** A `namespace` tool's own tools (Codex groups its multi-agent tools as `multi_agent_v1`). */
  tools?: ToolSpec[];
}
interface InputItem {
  type?: string;
  role?: string;
  author?: string;
  content?: unknown;
  name?: string;
  call_id?: string;
  output?: unknown;
  arguments?: string;
}
interface ResponsesRequest {
  model?: string;
  stream?: boolean;
  tools?: ToolSpec[];
  input?: InputItem[];
  instructions?: unknown;
}

type OutputItem =
  | { type: 'message'; id: string; role: 'assistant'; status: 'completed'; content: { type: 'output_text'; text: string; annotations: [] }[] }
  | { type: 'function_call'; id: string; call_id: string; name: string; namespace?: string; arguments: string; status: 'completed' };

/** The usage every response reports: 150 tokens, as the Messages fake (Codex shows it only as the session's usage_update). */
const RESPONSE_USAGE = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 150,
};

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value !== null && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return '';
}

/** The text the user (or the parent, for a subagent) wrote: user messages only, not the tools' outputs. */
function userText(req: ResponsesRequest): string {
  return (req.input ?? [])
    .filter((i) => (i.type === undefined || i.type === 'message') && i.role === 'user')
    .map((i) => textOf(i.content))
    .join('\n');
}

function outputsOf(req: ResponsesRequest, tool: string): string[] {
  const calls = new Map<string, string>();
  for (const i of req.input ?? []) if (i.type === 'function_call' && i.call_id && i.name) calls.set(i.call_id, i.name);
  return (req.input ?? []).filter((i) => i.type === 'function_call_output' && calls.get(i.call_id ?? '') === tool).map((i) => textOf(i.output));
}

/** The agents spawn_agent answered: `{"agent_id": "…", "nickname": …}` (multi_agent_v1), `{"task_name": "/root/…"}` (v2). */
function spawnedIds(outputs: string[]): string[] {
  return outputs.map((o) => {
    try {
      const parsed = JSON.parse(o) as { agent_id?: unknown; task_name?: unknown };
      const id = parsed.agent_id ?? parsed.task_name;
      if (typeof id === 'string') return id;
    } catch {
      // not JSON: the whole output is the id
    }
    return o.trim();
  });
}

/** spawn_agent's arguments: multi_agent_v2 also requires a task name, and forks the parent's history unless told not to. */
function spawnArgs(props: Record<string, unknown>, launch: ScriptedLaunch): Record<string, unknown> {
  const args: Record<string, unknown> = { message: launch.prompt };
  if ('task_name' in props) args.task_name = launch.description.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  if ('fork_turns' in props) args.fork_turns = 'none';
  if ('fork_context' in props) args.fork_context = false;
  return args;
}

const MAX_REQUESTS = 60;

const FINAL = new Set(['completed', 'errored', 'shutdown', 'not_found', 'interrupted']);

/**
 * The agents known finished: keys of a wait_agent output's `status` map with a final status
 * (`{"status": {"<id>": {"completed": "…"}}, "timed_out": false}`), the `agent_path` of each
 * `<subagent_notification>` the parent received (multi_agent_v1), and the author of each
 * FINAL_ANSWER `agent_message` input item (multi_agent_v2).
 */
function finishedAgents(req: ResponsesRequest, waitOutputs: string[], said: string): Set<string> {
  const done = new Set<string>();
  const take = (id: unknown, status: unknown) => {
    const name = typeof status === 'string' ? status : status !== null && typeof status === 'object' ? Object.keys(status)[0] : undefined;
    if (typeof id === 'string' && name !== undefined && FINAL.has(name)) done.add(id);
  };
  for (const o of waitOutputs) {
    try {
      const parsed = JSON.parse(o) as { status?: Record<string, unknown> };
      for (const [id, status] of Object.entries(parsed.status ?? {})) take(id, status);
    } catch {
      // not JSON: nothing known from it
    }
  }
  for (const m of said.matchAll(/<subagent_notification>\s*(\{.*?\})\s*<\/subagent_notification>/gs)) {
    try {
      const parsed = JSON.parse(m[1]) as { agent_path?: unknown; status?: unknown };
      take(parsed.agent_path, parsed.status);
    } catch {
      // not JSON: nothing known from it
    }
  }
  for (const i of req.input ?? []) if (i.type === 'agent_message' && textOf(i.content).includes('FINAL_ANSWER')) take(i.author, 'completed');
  return done;
}

export async function startFakeResponsesApi(launches: ScriptedLaunch[], workFile: string): Promise<FakeResponsesApi> {
  const requests: FakeResponsesApi['requests'] = [];
  let ids = 0;
  const next = (prefix: string) => `${prefix}_fake${String(++ids).padStart(4, '0')}`;

  function call(tools: Map<string, string | undefined>, name: string, args: Record<string, unknown>): OutputItem {
    const namespace = tools.get(name);
    return {
      type: 'function_call',
      id: next('fc'),
      call_id: next('call'),
      name,
      ...(namespace ? { namespace } : {}),
      arguments: JSON.stringify(args),
      status: 'completed',
    };
  }
  function message(text: string): OutputItem {
    return { type: 'message', id: next('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  }

  function answer(req: ResponsesRequest): OutputItem[] {
    // A script that went wrong must end, not loop: past this many requests, only text.
    if (requests.length > MAX_REQUESTS) return [message('Stopping: the script ran too long.')];
    // Tool name → its namespace (undefined at top level), and its parameters.
    const tools = new Map<string, string | undefined>();
    const params = new Map<string, Record<string, unknown>>();
    for (const t of req.tools ?? []) {
      for (const inner of t.type === 'namespace' ? (t.tools ?? []) : [t]) {
        if (!inner.name) continue;
        tools.set(inner.name, t.type === 'namespace' ? t.name : undefined);
        params.set(inner.name, inner.parameters?.properties ?? {});
      }
    }
    const said = userText(req);
    if (tools.has('spawn_agent') && said.includes(SCRIPT_MARKER)) {
      const spawns = outputsOf(req, 'spawn_agent');
      // The launches, and beside them one plain command of the main agent's own: a tool call on
      // the ACP stream that is not a subagent.
      if (spawns.length === 0)
        return [
          ...launches.map((l) => call(tools, 'spawn_agent', spawnArgs(params.get('spawn_agent') ?? {}, l))),
          call(tools, 'exec_command', { cmd: `cat ${workFile}`, yield_time_ms: 1000 }),
        ];
      // Wait on the agents not known finished yet: a wait returns as soon as one of its targets
      // finishes, and later finishes also arrive as <subagent_notification> user messages.
      const finished = finishedAgents(req, outputsOf(req, 'wait_agent'), said);
      const waiting = spawnedIds(spawns).filter((id) => !finished.has(id));
      // multi_agent_v2's wait_agent takes no targets: it waits for the next message of any agent.
      const targets = 'targets' in (params.get('wait_agent') ?? {}) ? { targets: waiting } : {};
      if (waiting.length) return [call(tools, 'wait_agent', { ...targets, timeout_ms: 60_000 })];
      return [message('All reviews are in. Done.')];
    }
    if (said.includes(READ_MARKER) && tools.has('exec_command') && outputsOf(req, 'exec_command').length === 0)
      return [call(tools, 'exec_command', { cmd: `cat ${workFile}`, yield_time_ms: 1000 })];
    if (tools.size === 0) return [message('Review fan-out')];
    return [message('Reviewed: no findings.')];
  }

  function sendStream(res: ServerResponse, model: string, items: OutputItem[]) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const id = next('resp');
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
    event('response.created', { response: { ...base, status: 'in_progress', output: [] } });
    items.forEach((item, output_index) => {
      if (item.type === 'message') {
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        event('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta: item.content[0].text });
      } else {
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      }
      event('response.output_item.done', { output_index, item });
    });
    event('response.completed', { response: { ...base, status: 'completed', output: items, usage: RESPONSE_USAGE } });
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const { path, body } = await readRequest<ResponsesRequest>(req, requests);
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
    }
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { type: 'not_found', message: path } }));
    }
    sendStream(res, body.model ?? 'gpt-scripted', answer(body));
  }

  return startFakeApi(requests, handle);
}
