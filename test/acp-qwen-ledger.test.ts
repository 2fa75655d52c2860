// The usage ledger from the live wire (issue 33): Qwen Code reports each subagent's usage summed
// over its run (executionSummary, on the terminal frame), and the recorder sets that
// subagent's ledger row to it (source 'live', model 'unknown'). Replayed from the real
// recording on both dialects, the expected figures read from the recording itself: one row per
// subagent that reports its totals (nested ones included, background launches none), the same
// bytes after a second replay, no row from any other agent's recording, and a ledger that
// fails costs the subagent row nothing (WARN and ledger_failed, whatever the transaction).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, createSubagentRecognizer, type AcpRecorder } from '../src/acp/index.js';
import { runCli } from '../src/cli/main.js';
import type { StoreOptions, SubagentContextRow, SubagentContextStore } from '../src/types.js';
import { expectQwenFanout } from './helpers/acp-expectations.js';
import { acpSessionOf, contextFor, HOST, loadAcpFixture, replayFixture, type AcpFixtureName } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { createFailingTrigger } from './helpers/injected-triggers.js';
import { EXEC_A, frame } from './helpers/live-db.js';
import { expectedQwenLedger, figuresOf, qwenSummaries, readLedger } from './helpers/qwen-ledger.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const FIXTURE = 'qwen-fanout';
const OTHERS: AcpFixtureName[] = [
  'claude-fanout',
  'claude-refused',
  'claude-subagents-capability',
  'opencode-fanout',
  'codex-fanout',
  'codex-subagents-capability',
  'codex-multi-agent-v2',
  'gemini-fanout',
  'gemini-refused',
];

/** Every update of the recording through `recorder`, not awaited one by one (as an SDK hands them over); all persisted. */
async function play(recorder: AcpRecorder): Promise<void> {
  const outcomes = await Promise.all(loadAcpFixture(FIXTURE).map((u) => recorder.sessionUpdate(u)));
  expect(outcomes.filter((o) => o !== undefined && o !== 'persisted')).toEqual([]);
}

const recorderOver = (store: SubagentContextStore) => createAcpRecorder(store, { context: contextFor(acpSessionOf(FIXTURE)) });

const rowsOf = async (store: SubagentContextStore): Promise<Map<string, SubagentContextRow>> =>
  new Map((await store.listBySession('s1')).map((r) => [r.tool_call_id, r]));

describeBothDialects('usage ledger from the live wire (Qwen Code)', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());
  const store = (options: StoreOptions = {}) => db.store({ clock: steppingClock(), ...options });

  it("one ledger row per subagent that reports its totals, exactly its executionSummary's figures; nested ones their own; background none", async () => {
    const s = store();
    await play(recorderOver(s));
    const rows = await rowsOf(s);
    expectQwenFanout(rows);
    const ledger = await readLedger(db);
    expect(figuresOf(ledger)).toEqual(expectedQwenLedger());
    for (const row of ledger) expect(row).toMatchObject({ task_session_id: HOST.sessionId, agent_execution_id: EXEC_A }); // the subagent row's key
    const ids = ledger.map((r) => r.tool_call_id);
    const nested = [...rows.values()].filter((r) => r.parent_tool_call_id !== null);
    expect(nested).toHaveLength(2);
    for (const row of nested) expect(ids).toContain(row.tool_call_id); // its own row: the parent's summary leaves its rounds out
    for (const row of [...rows.values()].filter((r) => r.is_async)) expect(ids).not.toContain(row.tool_call_id); // no summary on the wire
    // The split adds up to the total Qwen reports (the row's total_tokens), thought tokens none in this run.
    for (const [id, summary] of qwenSummaries()) {
      expect(summary.thoughtTokens).toBe(0);
      const r = ledger.find((l) => l.tool_call_id === id)!;
      expect(r.input_tokens! + r.output_tokens! + r.cache_read_input_tokens!).toBe(Number(rows.get(id)!.total_tokens));
    }
    expect(s.counters()).toMatchObject({ failed: 0, ledger_failed: 0, anomalous_value: 0 });
  });

  it('a second replay changes nothing, not even updated_at: through the same recorder, and through a new one', async () => {
    const s = store();
    const recorder = recorderOver(s);
    await play(recorder);
    const first = await readLedger(db);
    expect(first).toHaveLength(qwenSummaries().size);
    await play(recorder); // the same frames again (a proxy or a host that sees a frame twice)
    expect(await readLedger(db)).toEqual(first);
    await play(recorderOver(s)); // a new recorder, the same store's clock going on
    expect(await readLedger(db)).toEqual(first);
    expect(s.counters()).toMatchObject({ failed: 0, ledger_failed: 0 });
  });

  it("no ledger row from any other agent's recording: their wire carries no usage split (Claude's totalTokens is one response)", async () => {
    for (const name of OTHERS) {
      const rows = await replayFixture(db, name);
      expect({ name, rows: rows.size > 0 }).toEqual({ name, rows: true });
    }
    expect(await readLedger(db)).toEqual([]);
  });

  it('a ledger that fails costs the subagent row nothing: every frame persisted, the rows whole, WARN and ledger_failed per summary', async () => {
    await createFailingTrigger(db, 'task_session_subagent_usage', "NEW.source = 'live'");
    const logger = recordingLogger();
    const s = store({ logger });
    await play(recorderOver(s));
    expectQwenFanout(await rowsOf(s));
    expect(await readLedger(db)).toEqual([]);
    const summaries = qwenSummaries().size;
    expect(s.counters()).toMatchObject({ failed: 0, ledger_failed: summaries });
    expect(logger.lines.map((l) => [l.msg, l.fields.tool_call_id])).toEqual(
      [...qwenSummaries().keys()].map((id) => ['subagent usage ledger write failed; the subagent row is written', id]),
    );
  });

  it("inside the host's transaction: a failing ledger row is undone alone, the row commits; the ledger commits or rolls back with the host", async () => {
    const usage = { requests: 2, input_tokens: 240, output_tokens: 60, cache_read_input_tokens: 0 };
    const host = await beginHost(db);
    const s = store({ logger: recordingLogger() });
    expect(await s.recordFrame(frame({ toolCallId: 'kept', toolStatus: 'completed', usage }), host.options)).toBe('persisted');
    expect(await s.recordFrames([frame({ toolCallId: 'kept-batch', usage })], host.options)).toEqual(['persisted']);
    await host.exec(
      byDialect(dialect, {
        sqlite: `CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage WHEN NEW.tool_call_id LIKE 'poison%' BEGIN SELECT RAISE(ABORT, 'injected'); END`,
        postgres: `CREATE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'injected'; END $f$;
          CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage FOR EACH ROW WHEN (NEW.tool_call_id LIKE 'poison%') EXECUTE FUNCTION inject_failure();`,
      }),
    );
    expect(await s.recordFrame(frame({ toolCallId: 'poison', usage }), host.options)).toBe('persisted');
    expect(await s.recordFrames([frame({ toolCallId: 'poison-batch', usage }), frame({ toolCallId: 'after', usage })], host.options)).toEqual([
      'persisted',
      'persisted',
    ]);
    await host.commit();
    const ids = async (table: string) => (await db.query<{ id: string }>(`SELECT tool_call_id AS id FROM ${table} ORDER BY tool_call_id`)).map((r) => r.id);
    expect(await ids('task_session_subagents')).toEqual(['after', 'kept', 'kept-batch', 'poison', 'poison-batch']);
    expect(await ids('task_session_subagent_usage')).toEqual(['after', 'kept', 'kept-batch']);
    expect(s.counters()).toMatchObject({ persisted: 5, failed: 0, ledger_failed: 2 });

    const rolledBack = await beginHost(db);
    expect(await s.recordFrame(frame({ toolCallId: 'gone', usage }), rolledBack.options)).toBe('persisted');
    await rolledBack.rollback();
    expect(await ids('task_session_subagent_usage')).not.toContain('gone');
  });

  it("the report's usage-ledger section shows Qwen Code's figures: tokens, runs and requests per subagent type, the missing cache-write figure said", async () => {
    await play(recorderOver(store()));
    const summaries = [...qwenSummaries().values()];
    const tokens = summaries.reduce((a, s) => a + s.inputTokens + s.outputTokens, 0); // the ledger's split adds back up to these
    const requests = summaries.reduce((a, s) => a + s.rounds, 0);
    let out = '';
    const code = await runCli(['report', ...byDialect(dialect, { sqlite: ['--sqlite'], postgres: ['--postgres'] }), db.location], {
      out: (t) => void (out += t),
      err: () => undefined,
    });
    expect(code).toBe(0);
    const section = out.slice(out.indexOf('Usage ledger:'));
    expect(section).toMatch(
      new RegExp(
        `general-purpose · unknown +${tokens.toLocaleString('en-US')} tokens · ${summaries.length} runs · ${requests} requests · ${summaries.length} rows missing a figure \\(a lower bound\\)\\n`,
      ),
    );
  });

  it("a transcript import's row is never overwritten by a live summary; unreadable usage is a ledger failure, an unusable figure NULL", async () => {
    await db.exec(`INSERT INTO task_session_subagent_usage (task_session_id, agent_execution_id, tool_call_id, model, source, requests, input_tokens, updated_at)
      VALUES ('s1', '${EXEC_A}', 'imported', 'unknown', 'claude-code', 7, 700, '2026-07-25 17:20:00.000001')`);
    const s = store({ logger: recordingLogger() });
    expect(await s.recordFrame(frame({ toolCallId: 'imported', usage: { requests: 1, input_tokens: 1 } }))).toBe('persisted');
    const unreadable = frame({ toolCallId: 'unreadable' });
    Object.defineProperty(unreadable, 'usage', {
      enumerable: true,
      get() {
        throw new Error('hostile getter');
      },
    });
    expect(await s.recordFrame(unreadable)).toBe('persisted');
    expect(await s.recordFrame(frame({ toolCallId: 'odd', usage: { requests: -1, input_tokens: 1.5, output_tokens: 3, model: 'qwen3-coder' } }))).toBe(
      'persisted',
    );
    expect(figuresOf(await readLedger(db))).toEqual([
      {
        tool_call_id: 'imported',
        model: 'unknown',
        source: 'claude-code',
        requests: 7,
        input_tokens: 700,
        output_tokens: null,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
      },
      {
        tool_call_id: 'odd',
        model: 'qwen3-coder',
        source: 'live',
        requests: null,
        input_tokens: null,
        output_tokens: 3,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
      },
    ]);
    expect(s.counters()).toMatchObject({ persisted: 3, failed: 0, ledger_failed: 1, anomalous_value: 1 });
  });
});

/** A host's open transaction on the test database: SQLite's own connection, or a pg client that has BEGUN. */
async function beginHost(db: TestDb) {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const conn = db.sqlite!;
    conn.exec('BEGIN IMMEDIATE');
    return {
      options: { client: conn },
      exec: async (sql: string) => void conn.exec(sql),
      commit: async () => void conn.exec('COMMIT'),
      rollback: async () => void conn.exec('ROLLBACK'),
    };
  }
  const client = await db.pool!.connect();
  await client.query('BEGIN');
  const end = async (sql: string) => {
    try {
      await client.query(sql);
    } finally {
      client.release();
    }
  };
  return { options: { client }, exec: async (sql: string) => void (await client.query(sql)), commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
}

type Round = { inputTokens: number; outputTokens: number };

it("the recording's per-round usage lines: why the summary is the ledger's figure (docs/acp-intake.md)", () => {
  const rounds = new Map<string, Round[]>();
  let parentRounds = 0;
  for (const { update } of loadAcpFixture(FIXTURE)) {
    const meta = update._meta as { usage?: Round; parentToolCallId?: string } | undefined;
    if (update.sessionUpdate !== 'agent_message_chunk' || meta?.usage === undefined) continue;
    if (meta.parentToolCallId === undefined) parentRounds++;
    else rounds.set(meta.parentToolCallId, [...(rounds.get(meta.parentToolCallId) ?? []), meta.usage]);
  }
  const summaries = qwenSummaries();
  // Where a subagent's rounds are streamed, they add up to its summary: the two never both count.
  for (const [id, seen] of rounds) {
    const s = summaries.get(id)!;
    expect({ id, rounds: seen.length, input: seen.reduce((a, r) => a + r.inputTokens, 0), output: seen.reduce((a, r) => a + r.outputTokens, 0) }).toEqual({
      id,
      rounds: s.rounds,
      input: s.inputTokens,
      output: s.outputTokens,
    });
  }
  // But a nested subagent's rounds are not streamed at all: only its summary says what it used.
  const unstreamed = [...summaries.keys()].filter((id) => !rounds.has(id));
  expect(unstreamed.sort()).toEqual(['toolu_fake0008', 'toolu_fake0012']);
  // The parent's own rounds carry no id to make adding them idempotent: not in the ledger.
  expect(parentRounds).toBe(2);
});

it("the ledger's split of a summary: input without the cache reads it includes; nothing without a token split; never on another frame", () => {
  const r = createSubagentRecognizer();
  const terminal = (id: string, executionSummary: object) => ({
    sessionId: 'q',
    update: {
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      status: 'completed',
      rawOutput: { type: 'task_execution', status: 'completed', executionSummary },
      _meta: { toolName: 'agent', provenance: 'builtin' },
    },
  });
  const usageOf = (id: string, summary: object) => r.observe(terminal(id, summary))?.usage;
  expect(usageOf('a', { rounds: 3, inputTokens: 1000, outputTokens: 50, thoughtTokens: 20, cachedTokens: 800, totalTokens: 1050 })).toEqual({
    requests: 3,
    input_tokens: 200,
    output_tokens: 50,
    cache_read_input_tokens: 800,
  });
  expect(usageOf('b', { totalTokens: 300, totalToolCalls: 1, totalDurationMs: 9 })).toBeUndefined(); // an older Qwen Code: no split
  expect(usageOf('c', { rounds: 1, inputTokens: 10, outputTokens: 5, cachedTokens: 11 })).toEqual({
    requests: 1,
    input_tokens: undefined, // more cache reads than prompt: the split is not known
    output_tokens: 5,
    cache_read_input_tokens: 11,
  });
  const launch = r.observe({
    sessionId: 'q',
    update: { sessionUpdate: 'tool_call', toolCallId: 'd', status: 'pending', rawInput: {}, _meta: { toolName: 'agent', provenance: 'builtin' } },
  });
  expect(launch).toBeDefined();
  expect(launch).not.toHaveProperty('usage');
});
