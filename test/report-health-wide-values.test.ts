// The read side on values the write side accepts, on both dialects (an adversarial review,
// 2026-12-05): any int64 a subagent reports is stored as measured, so its sums in the report
// must not fail (SQLite's SUM over integers raised "integer overflow", PostgreSQL's BIGINT
// addition "bigint out of range", and one such subagent failed every report of its scope);
// and ids are any text, so two keys must never read as one because an id holds the separator
// a statement joined them with (health's collisions and the ledger's runs did).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatReport, type SubagentContextStore, type SubagentFrame } from '../src/index.js';
import { KEY } from './helpers/activation-keys.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

/** Within int64 (the writer stores it as a measurement), and any two of them are past it. */
const BIG = 5_000_000_000_000_000_000n;

const frame = (sessionId: string, toolCallId: string, extra: Partial<SubagentFrame> = {}): SubagentFrame => ({
  sessionId,
  taskId: 'T',
  executionId: 'e1',
  turnId: 'u1',
  toolCallId,
  toolStatus: 'completed',
  payload: { subagent_type: 'reviewer', total_tokens: 1 },
  ...extra,
});

describeBothDialects('report and health on values the writer accepts', (dialect) => {
  let db: TestDb;
  let store: SubagentContextStore;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    store = db.store();
    await store.runMigrations();
    for (const id of ['s1', 'a:b', 'a', 'x y', 'x']) await insertSession(db, id, 'T');
  });
  afterEach(async () => db.close());

  it('token figures whose sums pass int64 are summed, not failed', async () => {
    // One run with two figures of BIG (their row sum passes int64), three runs with total_tokens of BIG each.
    expect(await store.recordFrame(frame('s1', 'one', { usage: { model: 'm', input_tokens: BIG, output_tokens: BIG } }))).toBe('persisted');
    for (const id of ['two', 'three', 'four'])
      expect(await store.recordFrame(frame('s1', id, { payload: { total_tokens: BIG }, usage: { model: 'm', input_tokens: BIG } }))).toBe('persisted');
    expect(store.counters()).toMatchObject({ anomalous_value: 0, ledger_failed: 0 });
    const report = await store.report();
    const big = Number(BIG);
    expect(report.tokens.total_tokens).toBe(1 + 3 * big);
    const ledger = report.usage_ledger!;
    expect(ledger.all).toMatchObject({ runs: 4, subagent_tokens: 5 * big, reported_total_tokens: 1 + 3 * big, reported_runs: 4 });
    expect(ledger.by_subagent_type_and_model.map((g) => [g.subagent_type, g.runs, g.input_tokens, g.output_tokens, g.tokens])).toEqual([
      [null, 3, 3 * big, null, 3 * big],
      ['reviewer', 1, big, big, 2 * big],
    ]);
  });

  it('an unreadable key of 100 KB is quoted clipped in the notes, kept whole in keys', async () => {
    const huge = `x${'y'.repeat(100_000)}`;
    await db.query('UPDATE kandev_meta SET value = $1 WHERE key = $2', [huge, KEY.backfillThrough]);
    const report = await store.report();
    expect(report.keys.backfill_through).toBe(huge);
    const note = report.caveats.find((c) => c.includes('subagent_context_backfill_through holds'));
    expect(note).toContain(`"x${'y'.repeat(63)}…"`);
    expect(note!.length).toBeLessThan(400);
    expect(formatReport(report).length).toBeLessThan(20_000);
  });

  it('ids holding the separator: collisions count distinct keys, the ledger distinct runs', async () => {
    // Two subagents, each recorded once; no tool_call_id reused: 'a:b' + 'c' is not 'a' + 'b:c'.
    expect(await store.recordFrame(frame('a:b', 'c'))).toBe('persisted');
    expect(await store.recordFrame(frame('a', 'b:c'))).toBe('persisted');
    // Two runs with one ledger row each: ('x y', 'z', 'tc') is not ('x', 'y z', 'tc').
    expect(await store.recordFrame(frame('x y', 'tc', { executionId: 'z', usage: { model: 'm', input_tokens: 10 } }))).toBe('persisted');
    expect(await store.recordFrame(frame('x', 'tc', { executionId: 'y z', usage: { model: 'm', input_tokens: 10 } }))).toBe('persisted');
    expect((await store.checkHealth()).collisions).toBe(0);
    // Control: a tool call id really reused by a later execution is one collision.
    expect(await store.recordFrame(frame('a', 'b:c', { executionId: 'e2' }))).toBe('persisted');
    expect((await store.checkHealth()).collisions).toBe(1);
    const ledger = (await store.report()).usage_ledger!;
    expect(ledger.all.runs).toBe(2);
    expect(ledger.by_subagent_type_and_model.map((g) => [g.model, g.runs, g.tokens])).toEqual([['m', 2, 20]]);
  });
});
