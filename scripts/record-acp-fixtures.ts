// Re-records recordings/acp/*.jsonl from the real agents: installs the pinned agents
// (scripts/install-agents.ts), then re-runs itself inside a loopback-only network namespace,
// plays each scenario of test/agents/scenarios.ts against its scripted model API (the Messages
// API; Gemini's own for Gemini CLI) and writes
// the session/update params the agent sent, in order, one JSON object per line. Kept: every
// tool call, tool-call update and subagent_update, and the other kinds except the
// multi-kilobyte command and config lists (so the fixtures stay small and still show the
// recognizer the updates it must ignore). Usage: tsx scripts/record-acp-fixtures.ts [scenario…]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PINNED_AGENTS, PINNED_OVERRIDES } from '../test/agents/agents.js';
import { insideOfflineNamespace, runOffline } from '../test/agents/netns.js';
import { runScenario, SCENARIOS, type ScenarioName } from '../test/agents/scenarios.js';

const FIXTURES = join(import.meta.dirname, '..', 'recordings', 'acp');
const DROPPED = new Set(['available_commands_update', 'config_option_update']);

const requested = process.argv.slice(2) as ScenarioName[];
for (const name of requested) if (!(name in SCENARIOS)) throw new Error(`unknown scenario ${name}; one of ${Object.keys(SCENARIOS).join(', ')}`);
const names = requested.length ? requested : (Object.keys(SCENARIOS) as ScenarioName[]);

if (!insideOfflineNamespace()) {
  execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'install-agents.ts')], { stdio: 'inherit' });
  process.exit(runOffline([process.execPath, '--import', 'tsx', import.meta.filename, ...names]));
}

mkdirSync(FIXTURES, { recursive: true });
for (const name of names) {
  const run = await runScenario(name);
  const kept = run.updates.filter((p) => !DROPPED.has(String((p.update as { sessionUpdate?: unknown }).sessionUpdate)));
  writeFileSync(join(FIXTURES, `${name}.jsonl`), kept.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const agent = SCENARIOS[name].agent;
  writeFileSync(
    join(FIXTURES, `${name}.meta.json`),
    JSON.stringify(
      {
        scenario: name,
        agent,
        packages: { ...PINNED_AGENTS[agent], ...PINNED_OVERRIDES[agent] },
        acpSessionId: run.acpSessionId,
        updates: kept.length,
        recorded_at: new Date().toISOString(),
      },
      null,
      2,
    ) + '\n',
  );
  console.log(`${name}: ${kept.length} updates (of ${run.updates.length})`);
}
