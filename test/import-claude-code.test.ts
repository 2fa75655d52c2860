// `import claude-code` on the transcripts the real Claude Code wrote (recordings/claude-code:
// three parallel reviewers, one of which launches a nested subagent, a background audit, a
// follow-up prompt; a second session of two): the host rows a host keeps, one subagent row per
// launch with its parent, the usage ledger equal to a reference reading of the same files, a
// second import that changes nothing, health on the result, and no prompt or output stored.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { filesUnder, importInto, RECORDED_PROJECTS, referenceUsage } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSION_FILES = filesUnder(RECORDED_PROJECTS, /^[0-9a-f-]{36}\.jsonl$/);
const AGENT_FILES = filesUnder(RECORDED_PROJECTS, /^agent-.*\.jsonl$/);
const REVIEW = basename(
  SESSION_FILES.find((f) => readFileSync(f, 'utf8').includes('FOLLOW-UP-LAUNCH'))!,
  '.jsonl',
);
const PAIR = basename(
  SESSION_FILES.find((f) => !f.includes(REVIEW))!,
  '.jsonl',
);

const meta = (agentFile: string) => JSON.parse(readFileSync(agentFile.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as { toolUseId: string };
const n = (v: unknown) => (v === null ? null : Number(v));

/** Every row of the tables an import writes, in a stable order (the idempotence check). */
async function dump(store: ProxyStore): Promise<unknown[]> {
  const tables = [
    'SELECT * FROM task_sessions ORDER BY id',
    'SELECT * FROM task_session_messages ORDER BY id',
    'SELECT * FROM task_session_subagents ORDER BY tool_call_id, task_session_id',
    'SELECT * FROM task_session_subagent_usage ORDER BY tool_call_id, task_session_id, model',
    'SELECT * FROM task_session_parent_usage ORDER BY task_session_id, model',
    'SELECT * FROM subagent_context_import_progress ORDER BY transcript',
  ];
  return Promise.all(tables.map((sql) => store.query(sql)));
}

describeBothDialects('import claude-code: the recorded transcripts', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('one session row per Claude session (task = its cwd), one subagent row per launch, nested under its parent', async () => {
    const { summary, warns } = await importInto(store, RECORDED_PROJECTS);
    expect(warns).toEqual([]);
    expect(summary).toMatchObject({ sessions: 2, transcripts: SESSION_FILES.length + AGENT_FILES.length, malformedLines: 0, failedFrames: 0, deferred: 0 });
    expect(await store.query('SELECT id, task_id FROM task_sessions ORDER BY id')).toEqual(
      [REVIEW, PAIR].sort().map((id) => ({ id, task_id: '/tmp/subagent-context-claude-recording' })),
    );
    const rows = await store.query<Record<string, unknown>>(
      `SELECT task_session_id, turn_id, agent_execution_id, tool_call_id, parent_tool_call_id, description, subagent_type, agent_id,
              model, agent_status, tool_status, is_async, total_tokens, source, settled_at
         FROM task_session_subagents ORDER BY task_session_id, observed_at, tool_call_id`,
    );
    const review = rows.filter((r) => r.task_session_id === REVIEW);
    expect(review.map((r) => r.description)).toEqual([
      'Review security',
      'Review performance',
      'Review style',
      'Background audit',
      'Nested check',
      'Follow-up check',
    ]);
    expect(rows.filter((r) => r.task_session_id === PAIR).map((r) => r.description)).toEqual(['Review tests', 'Review docs']);
    const by = (d: string) => review.find((r) => r.description === d)!;
    // Every subagent transcript's sidecar names the tool call whose row it is; each row has the agent id of its transcript.
    for (const file of AGENT_FILES.filter((f) => f.includes(REVIEW))) {
      const row = review.find((r) => r.tool_call_id === meta(file).toolUseId)!;
      expect(row.agent_id).toBe(basename(file, '.jsonl').replace('agent-', ''));
    }
    expect(by('Nested check').parent_tool_call_id).toBe(by('Review style').tool_call_id);
    expect(review.filter((r) => r.parent_tool_call_id !== null)).toHaveLength(1);
    expect(n(by('Background audit').is_async)).toBe(1);
    expect(by('Background audit').agent_status).toBe('completed'); // its task notification
    // One execution per session, a UUID; the spec's source stays 'live' (provenance: docs/claude-code.md).
    expect(new Set(review.map((r) => r.agent_execution_id)).size).toBe(1);
    expect(review[0].agent_execution_id).toMatch(UUID);
    expect(new Set(rows.map((r) => r.agent_execution_id)).size).toBe(2);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['live']));
    for (const r of rows) {
      expect(r.tool_status).toBe('completed');
      expect(r.settled_at).not.toBeNull();
      expect(r.model).toBe('claude-opus-5-5');
      expect(r.subagent_type).toBe('general-purpose');
    }
    // Turns are the prompts: the follow-up launch is in the second one, every other launch in the first.
    expect(by('Follow-up check').turn_id).toMatch(UUID);
    expect(new Set(review.filter((r) => r.description !== 'Follow-up check').map((r) => r.turn_id))).toEqual(new Set([by('Review security').turn_id]));
    expect(by('Follow-up check').turn_id).not.toBe(by('Review security').turn_id);
    // A message row per launch, as a host's writer keeps it, with the provenance and no prompt.
    const messages = await store.query<{ task_session_id: string; metadata: string }>('SELECT task_session_id, metadata FROM task_session_messages');
    expect(messages).toHaveLength(rows.length);
    for (const m of messages) expect(JSON.parse(m.metadata)).toMatchObject({ imported_from: 'claude-code', normalized: { kind: 'subagent_task' } });
  });

  it('the ledger: one row per subagent per model, each response once, equal to a reference reading of its transcript; the parent apart', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const ledger = await store.query<Record<string, unknown>>('SELECT * FROM task_session_subagent_usage');
    expect(ledger).toHaveLength(AGENT_FILES.length);
    for (const file of AGENT_FILES) {
      const sessionId = basename(dirname(dirname(file)));
      const rows = ledger.filter((r) => r.task_session_id === sessionId && r.tool_call_id === meta(file).toolUseId);
      const expected = [...referenceUsage(file)].map(([model, u]) => ({ model, source: 'claude-code', ...u }));
      expect(
        rows.map((r) => ({
          model: r.model,
          source: r.source,
          requests: n(r.requests),
          input_tokens: n(r.input_tokens),
          output_tokens: n(r.output_tokens),
          cache_read_input_tokens: n(r.cache_read_input_tokens),
          cache_creation_input_tokens: n(r.cache_creation_input_tokens),
        })),
      ).toEqual(expected);
    }
    const parents = await store.query<Record<string, unknown>>('SELECT * FROM task_session_parent_usage ORDER BY task_session_id');
    for (const file of SESSION_FILES) {
      const row = parents.find((r) => r.task_session_id === basename(file, '.jsonl'))!;
      const [[model, u]] = [...referenceUsage(file)];
      expect({ model: row.model, requests: n(row.requests), input_tokens: n(row.input_tokens), output_tokens: n(row.output_tokens) }).toEqual({
        model,
        requests: u.requests,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
      });
    }
    // The review session's main transcript writes one response as four lines (four parallel launches): counted once.
    expect(n(parents.find((r) => r.task_session_id === REVIEW)!.requests)).toBe(4);
  });

  it('a second import changes nothing; transcripts deleted later keep their rows', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const first = await dump(store);
    const again = await importInto(store, RECORDED_PROJECTS);
    expect(again.summary).toMatchObject({ transcripts: 0, bytes: 0, lines: 0, frames: 0 });
    expect(await dump(store)).toEqual(first);
    await importInto(store, mkdtempSync(join(tmpdir(), 'empty-projects-')));
    expect(await dump(store)).toEqual(first);
  });

  it('health on the imported store: every launch has its row, and a missing one is seen', async () => {
    // Health looks at what was observed since activation: the transcripts' lines are given
    // instants after it (a session that ran after the store was set up), in a copy.
    await importInto(store, mkdtempSync(join(tmpdir(), 'no-projects-'))); // creates the store: activation
    const copy = mkdtempSync(join(tmpdir(), 'claude-projects-'));
    cpSync(RECORDED_PROJECTS, copy, { recursive: true });
    const later = Date.now() + 1000;
    for (const file of filesUnder(copy, /\.jsonl$/)) {
      const lines = readFileSync(file, 'utf8').replace(/"timestamp":"[^"]+"/g, () => `"timestamp":"${new Date(later).toISOString()}"`);
      writeFileSync(file, lines);
    }
    await new Promise((r) => setTimeout(r, Math.max(0, later - Date.now()) + 50));
    await importInto(store, copy);
    const health = await store.store().checkHealth();
    expect(health).toMatchObject({ verdict: 'healthy', shortfall: 0, excess: 0, collisions: 0 });
    await store.exec(`DELETE FROM task_session_messages WHERE metadata LIKE '%"description":"Review docs"%'`);
    expect(await store.store().checkHealth()).toMatchObject({ excess: 1 });
    rmSync(copy, { recursive: true, force: true });
  });

  it('privacy: no prompt, no answer and no file content reaches the database', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const everything = JSON.stringify(await dump(store));
    for (const secret of [
      'Review the change for',
      'Audit the dependencies',
      'Reviewed: no findings',
      'nothing to see',
      'SUBAGENT-CONTEXT-FANOUT',
      'All reviews are in',
    ])
      expect(everything).not.toContain(secret);
  });
});
