// The scripted runs: what the main conversation launches, per agent, and a run that collects
// every session/update the agent sends (in order), for the real-agent suite and for
// scripts/record-acp-fixtures.ts.
import { rmSync } from 'node:fs';
import { agentCommand, type AgentName, type AgentOptions } from './agents.js';
import { startFakeGeminiApi } from './fake-gemini-api.js';
import { NESTED_MARKER, READ_MARKER, REFUSE_MARKER, SCRIPT_MARKER, startFakeMessagesApi, type ScriptedLaunch } from './fake-messages-api.js';
import { startFakeResponsesApi } from './fake-responses-api.js';
import { freshHome, runAgent, type AgentCommand } from './run-agent.js';

export type ScenarioName =
  | 'claude-fanout'
  | 'claude-subagents-capability'
  | 'claude-refused'
  | 'opencode-fanout'
  | 'codex-fanout'
  | 'codex-subagents-capability'
  | 'codex-multi-agent-v2'
  | 'gemini-fanout'
  | 'gemini-refused'
  | 'qwen-fanout';

interface Scenario {
  agent: AgentName;
  subagentsCapability: boolean;
  launches: ScriptedLaunch[];
  options?: AgentOptions;
  /** What the agent still reports after its turn, for the run to wait for (runAgent's `settled`). */
  settled?(updates: RecordedRun['updates']): boolean;
}

/** Qwen Code reports a background subagent's end on an agent_message_chunk (_meta.backgroundTask), possibly after the turn. */
function backgroundCompletions(updates: RecordedRun['updates']): number {
  const ids = new Set<unknown>();
  for (const { update } of updates) {
    const task = (update as { _meta?: { backgroundTask?: { kind?: unknown; toolUseId?: unknown } } })._meta?.backgroundTask;
    if (task?.kind === 'agent') ids.add(task.toolUseId);
  }
  return ids.size;
}

// Three parallel reviewers (the spec's 3-way fan-out; one reads a file first, one launches a
// nested subagent) and one background launch. OpenCode's subagents have no task tool, so
// its nested marker is a plain answer.
const REVIEWERS: ScriptedLaunch[] = [
  { description: 'Review security', prompt: `${READ_MARKER} Review the change for security issues.` },
  { description: 'Review performance', prompt: 'Review the change for performance.' },
  { description: 'Review style', prompt: `${NESTED_MARKER} Review the change for style.` },
  { description: 'Background audit', prompt: 'Audit the dependencies.', background: true },
];

const CODEX_REVIEWERS: ScriptedLaunch[] = REVIEWERS.slice(0, 2).concat({ description: 'Review style', prompt: 'Review the change for style.' });
// Qwen Code: three parallel reviewers in the foreground (one reads a file first, two launch a
// nested subagent each), and three in the background, Qwen's default for a top-level launch
// (one leaves the flag out to take that default; one launches a nested subagent, which runs but
// never reaches the ACP stream: a background subagent's own tool calls are not forwarded).
const QWEN_REVIEWERS: ScriptedLaunch[] = [
  { description: 'Review security', prompt: `${READ_MARKER} Review the change for security issues.`, background: false },
  { description: 'Review performance', prompt: `${NESTED_MARKER} Review the change for performance.`, background: false },
  { description: 'Review style', prompt: `${NESTED_MARKER} Review the change for style.`, background: false },
  { description: 'Background audit', prompt: 'Audit the dependencies.', background: 'agent-default' },
  { description: 'Background licenses', prompt: 'Check the licenses.', background: true },
  { description: 'Background docs', prompt: `${NESTED_MARKER} Check the docs.`, background: true },
];
// Claude Code's server-side auto-mode check flags one launch (the scripted API's verdict), the
// other runs: a refused launch on the wire.
const REFUSED: ScriptedLaunch[] = [
  { description: 'Refused review', prompt: `${REFUSE_MARKER} Review the deployment secrets.` },
  { description: 'Allowed review', prompt: 'Review the change for style.' },
];

export const SCENARIOS: Record<ScenarioName, Scenario> = {
  'claude-fanout': { agent: 'claude', subagentsCapability: false, launches: REVIEWERS },
  'claude-subagents-capability': { agent: 'claude', subagentsCapability: true, launches: REVIEWERS },
  'claude-refused': { agent: 'claude', subagentsCapability: false, launches: REFUSED },
  'opencode-fanout': { agent: 'opencode', subagentsCapability: false, launches: REVIEWERS },
  // Codex: three parallel reviewers through spawn_agent, one of which runs a command first, and
  // a command of the main agent's own; every spawn is detached (the parent waits with
  // wait_agent), so there is no separate background launch; nesting is off by default
  // (agents.max_depth). Its two multi-agent tool sets: v1 (the default) and v2.
  'codex-fanout': { agent: 'codex', subagentsCapability: false, launches: CODEX_REVIEWERS },
  'codex-subagents-capability': { agent: 'codex', subagentsCapability: true, launches: CODEX_REVIEWERS },
  'codex-multi-agent-v2': { agent: 'codex', subagentsCapability: false, launches: CODEX_REVIEWERS, options: { codexMultiAgentV2: true } },
  // Gemini CLI has no background launch and gives its subagents no delegation tool: three
  // parallel reviewers (one reads a file first). In its default approval mode it refuses every
  // agent but its read-only ones (the first launch goes to one: test/agents/fake-gemini-api.ts).
  'gemini-fanout': { agent: 'gemini', subagentsCapability: false, launches: REVIEWERS.slice(0, 3), options: { approvalMode: 'yolo' } },
  'gemini-refused': { agent: 'gemini', subagentsCapability: false, launches: REVIEWERS.slice(0, 3), options: { approvalMode: 'default' } },
  'qwen-fanout': {
    agent: 'qwen',
    subagentsCapability: false,
    launches: QWEN_REVIEWERS,
    settled: (updates) => backgroundCompletions(updates) >= QWEN_REVIEWERS.filter((l) => l.background !== false).length,
  },
};

export interface RecordedRun {
  acpSessionId: string;
  /** The session's cwd (the agent's fresh HOME). */
  cwd: string;
  updates: { sessionId: string; update: object }[];
}

export interface ScenarioHooks {
  /** Runs the agent behind something else (the proxy's test puts `subagent-context proxy` in front). */
  wrap?(agent: AgentCommand): AgentCommand;
  onSession?(acpSessionId: string): void;
  onUpdate?(params: { sessionId: string; update: object }): void | Promise<void>;
}

export async function runScenario(name: ScenarioName, hooks: ScenarioHooks = {}): Promise<RecordedRun> {
  const scenario = SCENARIOS[name];
  const { home, workFile } = freshHome(name);
  // Codex speaks the OpenAI Responses API, Gemini CLI Gemini's own; the others the Anthropic Messages API.
  const startApi = scenario.agent === 'codex' ? startFakeResponsesApi : scenario.agent === 'gemini' ? startFakeGeminiApi : startFakeMessagesApi;
  const api = await startApi(scenario.launches, workFile);
  const updates: RecordedRun['updates'] = [];
  try {
    const run = await runAgent({
      agent: (hooks.wrap ?? ((a) => a))(agentCommand(scenario.agent, api.url, home, scenario.options)),
      cwd: home,
      prompt: `${SCRIPT_MARKER}: review this change with the reviewers.`,
      subagentsCapability: scenario.subagentsCapability,
      settled: scenario.settled && (() => scenario.settled!(updates)),
      onSession: hooks.onSession,
      onUpdate: async (params) => {
        updates.push(params);
        await hooks.onUpdate?.(params);
      },
    });
    return { acpSessionId: run.acpSessionId, cwd: home, updates };
  } finally {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
}
