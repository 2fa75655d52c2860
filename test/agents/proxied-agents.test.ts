// `subagent-context proxy` in front of the REAL agents (issue 21, item 4), offline like the rest
// of `npm run test:agents`: the SDK client speaks to a stdio tap, the tap to the proxy, the
// proxy to a second tap, that tap to Claude Code (through claude-agent-acp), OpenCode, Codex, Gemini CLI or Qwen Code. The
// two taps' bytes must be identical in both directions (the relay is invisible, on real
// traffic), and the proxy's own store must hold the rows the intake expects, under the
// identity the proxy supplies (the ACP session, its cwd, one turn, one execution), with a
// healthy `health` and the fan-out in the report. Both dialects.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { expectClaudeFanout, expectCodexFanout, expectGeminiFanout, expectOpencodeFanout, expectQwenFanout } from '../helpers/acp-expectations.js';
import { assertBuilt, CLI } from '../helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, type ProxyStore } from '../helpers/proxy-store.js';
import { proxiedRows } from '../helpers/proxy-rows.js';
import { describeBothDialects } from '../helpers/test-db.js';
import { missingPackages, PINNED_AGENTS, type AgentName } from './agents.js';
import { insideOfflineNamespace } from './netns.js';
import { runScenario, type ScenarioName } from './scenarios.js';

const TAP = resolve('test/fixtures/stdio-recorder.mjs');

beforeAll(() => {
  assertBuilt();
  if (!insideOfflineNamespace()) throw new Error('run through `npm run test:agents` (a loopback-only network namespace)');
  for (const name of Object.keys(PINNED_AGENTS) as AgentName[]) expect(missingPackages(name), `${name} installed`).toEqual([]);
});

const SCENARIOS: [ScenarioName, (rows: Map<string, SubagentContextRow>) => void][] = [
  ['claude-fanout', expectClaudeFanout],
  ['opencode-fanout', expectOpencodeFanout],
  ['codex-fanout', expectCodexFanout],
  ['gemini-fanout', expectGeminiFanout],
  ['qwen-fanout', expectQwenFanout],
];

describeBothDialects('proxy: in front of real agents', (dialect) => {
  let store: ProxyStore;
  let taps: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    taps = mkdtempSync(join(tmpdir(), 'subagent-context-taps-'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(taps, { recursive: true, force: true });
  });

  for (const [name, expectRows] of SCENARIOS) {
    it(`${name}: relayed byte for byte; the rows, health and fan-out from the proxy's store`, async () => {
      const client = join(taps, 'client-side');
      const agent = join(taps, 'agent-side');
      const run = await runScenario(name, {
        wrap: (a) => ({
          name: `proxied ${a.name}`,
          command: process.execPath,
          args: [TAP, client, '--', process.execPath, CLI, 'proxy', ...store.args, '--', process.execPath, TAP, agent, '--', a.command, ...a.args],
          env: { ...a.env, ...PROXY_TEST_ENV }, // the proxy waits for its writer: the rows are there when it exits
        }),
      });
      // The same bytes on both sides of the proxy, each way.
      const bytes = (dir: string, file: string) => readFileSync(join(dir, file));
      expect(bytes(client, 'out.bin').length).toBeGreaterThan(1000);
      expect(bytes(client, 'out.bin').equals(bytes(agent, 'out.bin'))).toBe(true);
      expect(bytes(client, 'in.bin').equals(bytes(agent, 'in.bin'))).toBe(true);

      const rows = await proxiedRows(store, run.acpSessionId, run.cwd);
      expectRows(rows);
      expect(await store.store().checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
      const report = await store.store().report();
      expect(report.fan_out.known).toEqual([{ subagents: rows.size, turns: 1 }]);
    });
  }
});
