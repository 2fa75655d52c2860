// The ACP wiring example (docs/acp-client.md, linked from the README), run as written (its package imports
// pointed at this checkout's sources) against a real ACP agent process over stdio: the replay
// agent (test/fixtures/acp-replay-agent.mjs) plays the Claude Code recording through
// @agentclientprotocol/sdk's agent side. The rows it leaves in the host's SQLite file are
// checked here. SQLite only: the example is the SQLite host's (the recorder's behaviour on
// both dialects is test/acp-recorded.test.ts).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { hostSchema } from '../generated/sqlite/index.js';
import { documentedExamples } from './helpers/readme-examples.js';
import { run } from './helpers/run-command.js';

const root = resolve(import.meta.dirname, '..');
// Inside the checkout, so the example's other imports resolve from its node_modules.
const dir = mkdtempSync(join(root, 'test', '.readme-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('docs/acp-client.md: the ACP wiring example records the replayed Claude Code fan-out', async () => {
  const code = documentedExamples(root).get('acp/wiring.ts');
  expect(code).toBeDefined();
  const program = code!
    .replace("from 'subagent-context/acp'", `from '${join(root, 'src', 'acp', 'index.ts')}'`)
    .replace("from 'subagent-context'", `from '${join(root, 'src', 'index.ts')}'`);
  expect(program).not.toContain("'subagent-context");
  writeFileSync(join(dir, 'wiring.ts'), program);

  const file = join(dir, 'kandev.db');
  const host = new Database(file);
  for (const s of hostSchema) host.exec(s.sql);
  host
    .prepare(
      "INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('ses-1', 'task-42', '2026-08-12 13:00:00.000000+00:00', '2026-08-12 13:00:00.000000+00:00')",
    )
    .run();
  host.close();

  const result = await run(process.execPath, ['--import', 'tsx', join(dir, 'wiring.ts')], {
    cwd: dir,
    env: { KANDEV_DB: file, ACP_AGENT: `${process.execPath} ${join(root, 'test', 'fixtures', 'acp-replay-agent.mjs')} claude-fanout` },
  });
  expect(result.code, result.output).toBe(0);
  expect(result.output).toContain("[ 'Review security', 'completed', 150 ]");

  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT description, tool_status, total_tokens, parent_tool_call_id, task_id FROM task_session_subagents ORDER BY description')
      .all();
    expect(rows).toEqual([
      { description: 'Background audit', tool_status: 'completed', total_tokens: null, parent_tool_call_id: null, task_id: 'task-42' },
      { description: 'Nested check', tool_status: 'completed', total_tokens: 150, parent_tool_call_id: 'toolu_fake0004', task_id: 'task-42' },
      { description: 'Review performance', tool_status: 'completed', total_tokens: 150, parent_tool_call_id: null, task_id: 'task-42' },
      { description: 'Review security', tool_status: 'completed', total_tokens: 150, parent_tool_call_id: null, task_id: 'task-42' },
      { description: 'Review style', tool_status: 'completed', total_tokens: 150, parent_tool_call_id: null, task_id: 'task-42' },
    ]);
  } finally {
    db.close();
  }
});
