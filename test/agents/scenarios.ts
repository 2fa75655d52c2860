// The scripted runs: what the main conversation launches, per agent, and a run that collects
// every session/update the agent sends (in order), for the real-agent suite and for
// scripts/record-acp-fixtures.ts.
import { rmSync } from 'node:fs';
import { agentCommand, type AgentName } from './agents.js';
import { NESTED_MARKER, READ_MARKER, REFUSE_MARKER, SCRIPT_MARKER, startFakeMessagesApi, type ScriptedLaunch } from './fake-messages-api.js';
import { freshHome, runAgent, type AgentCommand } from './run-agent.js';

export type ScenarioName = 'claude-fanout' | 'claude-subagents-capability' | 'claude-refused' | 'opencode-fanout';

interface Scenario {
  agent: AgentName;
  subagentsCapability: boolean;
  launches: ScriptedLaunch[];
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
  const api = await startFakeMessagesApi(scenario.launches, workFile);
  const updates: RecordedRun['updates'] = [];
  try {
    const run = await runAgent({
      agent: (hooks.wrap ?? ((a) => a))(agentCommand(scenario.agent, api.url, home)),
      cwd: home,
      prompt: `${SCRIPT_MARKER}: review this change with the reviewers.`,
      subagentsCapability: scenario.subagentsCapability,
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
