// A scripted, local Gemini API (generativelanguage `v1beta`) for Gemini CLI's real-agent runs:
// the CLI reaches it through GOOGLE_GEMINI_BASE_URL (its "gateway" auth type) on 127.0.0.1
// inside the loopback-only namespace. It answers `models/<m>:streamGenerateContent?alt=sse`,
// `:generateContent` and `:countTokens` and plays the same script as the Messages API fake
// (test/agents/fake-messages-api.ts), in Gemini's terms:
// - the main conversation (a user turn names SCRIPT_MARKER) calls the plain `read_file` tool and
//   `invoke_agent` once per launch (the first to `codebase_investigator`, the others to
//   `generalist`), all in ONE model response (parallel function calls; the CLI
//   runs them one after another), then answers in text once every call has a functionResponse;
// - a subagent (its request offers `complete_task`, the only way a Gemini subagent finishes)
//   whose prompt says READ_MARKER calls `read_file` first, then every subagent calls
//   `complete_task` with arguments built from that tool's own schema;
// - every other request (a JSON-schema side query, a title) gets a short answer.
// Gemini CLI 0.61.0 gives its subagents no `invoke_agent` (LocalAgentExecutor drops every tool of
// kind Agent from a subagent's registry), so NESTED_MARKER launches nothing here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequest, startFakeApi, type RunningFakeApi } from './fake-api-server.js';
import { READ_MARKER, SCRIPT_MARKER, type ScriptedLaunch } from './fake-messages-api.js';

export type FakeGeminiApi = RunningFakeApi;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
}
interface FunctionDeclaration {
  name: string;
  parameters?: Schema;
  parametersJsonSchema?: Schema;
}
interface Part {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: unknown;
}
interface Content {
  role?: string;
  parts?: Part[];
}
interface GenerateRequest {
  contents?: Content[];
  tools?: { functionDeclarations?: FunctionDeclaration[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema };
}

/** Who the subagents are, two of Gemini CLI's built-in agents: the first launch goes to its read-only investigator, the others to its generalist. */
const agentFor = (launch: number) => (launch === 0 ? 'codebase_investigator' : 'generalist');
const SUBAGENT_ANSWER = 'Reviewed: no findings.';

function userText(req: GenerateRequest): string {
  return (req.contents ?? [])
    .filter((c) => c.role === 'user')
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? '')
    .join('\n');
}

function functionResponses(req: GenerateRequest): number {
  return (req.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse !== undefined).length;
}

/** A value that satisfies `schema` (Gemini's upper-case types or JSON Schema's lower-case ones). */
function sample(schema: Schema | undefined, text: string): unknown {
  if (!schema) return text;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) return sample(schema.anyOf[0], text);
  const type = String(Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (schema.properties ? 'object' : 'string'))).toLowerCase();
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, text)]));
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return false;
  return text;
}

export async function startFakeGeminiApi(launches: ScriptedLaunch[], workFile: string): Promise<FakeGeminiApi> {
  const requests: FakeGeminiApi['requests'] = [];

  function answer(req: GenerateRequest): Part[] {
    const tools = (req.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    const has = (name: string) => tools.find((t) => t.name === name);
    const said = userText(req);
    const results = functionResponses(req);
    const complete = has('complete_task');
    if (complete) {
      if (said.includes(READ_MARKER) && results === 0 && has('read_file')) return [{ functionCall: { name: 'read_file', args: { file_path: workFile } } }];
      return [
        {
          functionCall: {
            name: 'complete_task',
            args: sample(complete.parametersJsonSchema ?? complete.parameters, SUBAGENT_ANSWER) as Record<string, unknown>,
          },
        },
      ];
    }
    if (has('invoke_agent') && said.includes(SCRIPT_MARKER)) {
      if (results === 0)
        return [
          { functionCall: { name: 'read_file', args: { file_path: workFile } } },
          ...launches.map((l, i) => ({ functionCall: { name: 'invoke_agent', args: { agent_name: agentFor(i), prompt: `${l.description}: ${l.prompt}` } } })),
        ];
      return [{ text: 'All reviews are in. Done.' }];
    }
    const schema = req.generationConfig?.responseJsonSchema ?? req.generationConfig?.responseSchema;
    if (req.generationConfig?.responseMimeType === 'application/json') return [{ text: JSON.stringify(sample(schema, 'ok')) }];
    return [{ text: tools.length ? SUBAGENT_ANSWER : 'Review fan-out' }];
  }

  const usageMetadata = { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 };

  function response(model: string, parts: Part[]) {
    return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const { path, body } = await readRequest<GenerateRequest>(req, requests);
    const match = /\/models\/([^/:]+):(\w+)$/.exec(path);
    const [model, method] = match ? [decodeURIComponent(match[1]), match[2]] : ['', ''];
    if (method === 'countTokens') return sendJson(res, 200, { totalTokens: 100 });
    if (method === 'generateContent') return sendJson(res, 200, response(model, answer(body)));
    if (method === 'streamGenerateContent') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify(response(model, answer(body)))}\n\n`);
      return res.end();
    }
    return sendJson(res, 404, { error: { code: 404, message: `not scripted: ${req.method} ${path}`, status: 'NOT_FOUND' } });
  }

  return startFakeApi(requests, handle);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
