// store.report() against hand-computed figures, on both dialects: rows before and after
// backfill_through, a turn whose subagents split between backfilled and live rows, a live
// row exactly at the boundary, 'unknown' executions, NULL tokens (never a 0), unsettled
// rows, a row without a turn, windows that cut through turns, and taskIds scoping through
// the session's task. Every expected number below is derived in the comments from the seed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseInstant } from '../src/instant.js';
import type { SubagentContextReport } from '../src/index.js';
import { sqliteForm } from './helpers/sqlite-forms.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { setKeys } from './helpers/activation-keys.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertChatMessage, insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow, type SubagentRowSeed } from './helpers/seed-subagent-rows.js';

const ns = (iso: string) => parseInstant(iso)!;

// Keys: backfill_through B = 03-01 10:00, capture_since C = 03-01 12:00, execution_since E = 03-02 00:00.
const KEYS = {
  subagent_context_backfill_through: '2026-03-01T10:00:00.000000000Z',
  subagent_context_capture_since: '2026-03-01T12:00:00.000000000Z',
  subagent_context_execution_since: '2026-03-02T00:00:00.000000000Z',
};

/**
 * Sessions s1, s2 (task T1), s3 (T2), s4 (T3: a message, no subagent), s5 (T4: one message
 * in February). Turns:
 *   A (s1) 3 backfill rows, 08:00–08:02, before B                      -> unknown, k = 3
 *   B (s1) 2 backfill rows 09:59:59 and 10:00:00 + 1 live row 12:30  -> first < B: unknown, k = 3
 *   C (s2) 2 live rows 13:00, 13:05                                    -> known, k = 2
 *   D (s2) 1 live 'unknown' row 03-02 01:00 (after E)                  -> known, k = 1
 *   E (s3) 1 live row exactly at B (10:00:00.000000, before C)         -> known (equality), k = 1
 *   F (s3) 2 live rows 03-03 10:00 and 03-05 10:00                     -> known, k = 2
 *   plus one live row in s3 without a turn (14:00), whose own task_id is 'T9' (not its session's).
 */
function fixture(db: TestDb): SubagentRowSeed[] {
  // SQLite rows are stored in a mix of the host's forms; the figures must not care.
  const forms = ['canonical', 'trimmed', 'plus02', 'minus03', 'rfc3339', 'nanos'] as const;
  let i = 0;
  const at = (iso: string) =>
    byDialect(db.dialect, { sqlite: () => sqliteForm(ns(iso), forms[i++ % forms.length]), postgres: () => hostTimestamp(db, ns(iso)) })();
  const row = (
    id: string,
    sessionId: string,
    turnId: string | null,
    source: 'live' | 'backfill',
    executionId: string,
    observed: string,
    settled: boolean,
    totalTokens: number | null,
    subagentType: string | null,
    model: string | null,
    taskId?: string,
  ): SubagentRowSeed => ({
    id,
    sessionId,
    taskId: taskId ?? (sessionId === 's3' ? 'T2' : 'T1'),
    turnId,
    source,
    executionId,
    observedAt: at(observed),
    settledAt: settled ? at(observed) : null,
    totalTokens,
    subagentType,
    model,
  });
  return [
    row('a1', 's1', 'turn-a', 'backfill', 'unknown', '2026-03-01T08:00:00Z', true, 50_000, 'explorer', 'haiku'),
    row('a2', 's1', 'turn-a', 'backfill', 'unknown', '2026-03-01T08:01:00Z', true, null, 'explorer', null),
    row('a3', 's1', 'turn-a', 'backfill', 'unknown', '2026-03-01T08:02:00Z', false, null, 'explorer', null),
    row('b1', 's1', 'turn-b', 'backfill', 'unknown', '2026-03-01T09:59:59Z', true, 20_000, 'reviewer', null),
    row('b2', 's1', 'turn-b', 'backfill', 'unknown', '2026-03-01T10:00:00Z', false, null, 'reviewer', null),
    row('b3', 's1', 'turn-b', 'live', 'exec-1', '2026-03-01T12:30:00Z', true, 1_500, 'reviewer', null),
    row('c1', 's2', 'turn-c', 'live', 'exec-1', '2026-03-01T13:00:00Z', true, 250_000, 'reviewer', 'opus'),
    row('c2', 's2', 'turn-c', 'live', 'exec-2', '2026-03-01T13:05:00Z', true, 7, 'reviewer', 'opus'),
    row('d1', 's2', 'turn-d', 'live', 'unknown', '2026-03-02T01:00:00Z', true, null, null, null),
    row('e1', 's3', 'turn-e', 'live', 'exec-3', '2026-03-01T10:00:00.000000Z', true, 999, 'explorer', null),
    row('n1', 's3', null, 'live', 'exec-3', '2026-03-01T14:00:00Z', true, 3_000, 'reviewer', 'opus', 'T9'),
    row('f1', 's3', 'turn-f', 'live', 'exec-4', '2026-03-03T10:00:00Z', true, 12_000, null, null),
    row('f2', 's3', 'turn-f', 'live', 'exec-4', '2026-03-05T10:00:00Z', false, null, null, null),
  ];
}

const zeroTokens = { rows: 0, settled: 0, measured: 0, unmeasured: 0, total_tokens: 0, mean_tokens: null };

describeBothDialects('report: figures against hand-computed expectations', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    for (const [s, t] of [
      ['s1', 'T1'],
      ['s2', 'T1'],
      ['s3', 'T2'],
      ['s4', 'T3'],
      ['s5', 'T4'],
    ])
      await insertSession(db, s, t);
    for (const r of fixture(db)) await insertSubagentRow(db, r);
    await insertChatMessage(db, 'm4', 's4', hostTimestamp(db, ns('2026-03-01T15:00:00Z')));
    await insertChatMessage(db, 'm5', 's5', hostTimestamp(db, ns('2026-02-01T00:00:00Z')));
    await setKeys(db, KEYS);
  });
  afterAll(async () => db.close());

  it('all history: provenance, fan-out eras, cards, tokens and executions', async () => {
    const r = await db.store().report();
    expect(r.state).toBe('activated');
    expect(r.window).toEqual({ since: null, until: null });
    expect(r.task_ids).toBeNull();
    // 13 rows: backfill a1–a3, b1, b2 (5); live the other 8; e1 is the one live row before C.
    expect(r.provenance).toEqual({ rows: 13, live: 8, backfill: 5, live_before_capture_since: 1, shadowed_backfill_rows: 0 });
    // Known from B. A and B began before it (k = 3 each); C, F (k = 2) and D, E (k = 1) at or after.
    expect(r.fan_out).toEqual({
      known_from: '2026-03-01T10:00:00.000000000Z',
      known_from_key: 'backfill_through',
      known: [
        { subagents: 1, turns: 2 },
        { subagents: 2, turns: 2 },
      ],
      unknown: [{ subagents: 3, turns: 2 }],
      rows_without_turn: 1,
      turns_past_until: 0,
      turns_before_since: 0,
    });
    // Active: s1, s2, s3 (rows), s4, s5 (messages) = 5 sessions of T1–T4; T1 and T2 fanned out.
    expect(r.cards).toEqual({
      tasks: 4,
      sessions: 5,
      subagent_contexts: 13,
      tasks_with_subagents: 2,
      sessions_with_subagents: 3,
      sessions_per_card: 5 / 4,
      contexts_per_card: (5 + 13) / 4,
    });
    // Settled: a1 a2 b1 b3 c1 c2 d1 e1 n1 f1 (10); measured all but a2, d1 (8):
    // 50000 + 20000 + 1500 + 250000 + 7 + 999 + 3000 + 12000 = 337506. Not settled: a3 b2 f2.
    expect(r.tokens).toMatchObject({ rows: 13, settled: 10, measured: 8, unmeasured: 2, total_tokens: 337_506, mean_tokens: 337_506 / 8, outstanding: 3 });
    expect(r.tokens.by_source).toEqual([
      { source: 'live', rows: 8, settled: 7, measured: 6, unmeasured: 1, total_tokens: 267_506, mean_tokens: 267_506 / 6 },
      { source: 'backfill', rows: 5, settled: 3, measured: 2, unmeasured: 1, total_tokens: 70_000, mean_tokens: 35_000 },
    ]);
    expect(r.tokens.by_subagent_type).toEqual([
      { subagent_type: 'reviewer', rows: 6, settled: 5, measured: 5, unmeasured: 0, total_tokens: 274_507, mean_tokens: 274_507 / 5 },
      { subagent_type: 'explorer', rows: 4, settled: 3, measured: 2, unmeasured: 1, total_tokens: 50_999, mean_tokens: 50_999 / 2 },
      { subagent_type: null, rows: 3, settled: 2, measured: 1, unmeasured: 1, total_tokens: 12_000, mean_tokens: 12_000 },
    ]);
    expect(r.tokens.by_model).toEqual([
      { model: null, rows: 9, settled: 6, measured: 4, unmeasured: 2, total_tokens: 34_499, mean_tokens: 34_499 / 4 },
      { model: 'opus', rows: 3, settled: 3, measured: 3, unmeasured: 0, total_tokens: 253_007, mean_tokens: 253_007 / 3 },
      { model: 'haiku', rows: 1, settled: 1, measured: 1, unmeasured: 0, total_tokens: 50_000, mean_tokens: 50_000 },
    ]);
    // 1-2-5 buckets from [5, 10) (the 7) to [200k, 500k) (the 250000), gaps as 0.
    const filled = new Map([
      [5, 1],
      [500, 1],
      [1_000, 1],
      [2_000, 1],
      [10_000, 1],
      [20_000, 1],
      [50_000, 1],
      [200_000, 1],
    ]);
    const edges = [5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000];
    expect(r.tokens.distribution).toEqual(edges.slice(0, -1).map((from, i) => ({ from, to: edges[i + 1], subagents: filled.get(from) ?? 0 })));
    // Real ids: b3 c1 (exec-1), c2 (exec-2), e1 n1 (exec-3), f1 f2 (exec-4). 'unknown': 5 backfill + d1,
    // which is live and after E.
    expect(r.executions).toEqual({ distinct: 4, identified_rows: 7, unknown_rows: 6, unknown_backfill_rows: 5, unknown_live_rows_since_execution_since: 1 });
  });

  it('the caveats name what applies: provenance, the boundary, unknown turns, validity, the sentinel, NULL tokens', async () => {
    const { caveats } = await db.store().report();
    const has = (re: RegExp) =>
      expect(
        caveats.some((c) => re.test(c)),
        `${re} in\n${caveats.join('\n')}`,
      ).toBe(true);
    has(/^5 rows of 13 came from the backfill .*AC-25/);
    has(/^Fan-out is known for turns whose first subagent was observed at or after subagent_context_backfill_through \(2026-03-01T10:00:00\.000000000Z\)/);
    has(/^2 turns began before any fan-out boundary; their rows are counted, not discarded/);
    has(/^Before subagent_context_capture_since \(2026-03-01T12:00:00\.000000000Z\) the absence of a row is not evidence/);
    has(/^1 live row was observed before subagent_context_capture_since\. .*completeness, never validity/);
    has(/^6 rows carry agent_execution_id 'unknown'.*never counted as an execution/);
    has(/^1 live row observed since subagent_context_execution_since arrived without an execution id/);
    has(
      /^2 settled subagents reported no token usage \(total_tokens NULL, or a stored 0 or negative, which is no measurement\)\. They are counted as unmeasured, never as 0/,
    );
    has(/^3 subagents had not settled/);
    has(/^1 row in the window has no turn_id/);
    expect(caveats.some((c) => /AC-24b|AC-24c|Scoped to/.test(c))).toBe(false);
  });

  it('a window from capture_since to 03-03: turn B began before it, C and D are in it, E (at B) is not', async () => {
    const r = await db.store().report({ since: '2026-03-01T12:00:00Z', until: '2026-03-03T00:00:00Z' });
    expect(r.window).toEqual({ since: '2026-03-01T12:00:00.000000000Z', until: '2026-03-03T00:00:00.000000000Z' });
    // Rows b3, c1, c2, d1, n1.
    expect(r.provenance).toEqual({ rows: 5, live: 5, backfill: 0, live_before_capture_since: 0, shadowed_backfill_rows: 0 });
    expect(r.fan_out).toMatchObject({
      known: [
        { subagents: 1, turns: 1 },
        { subagents: 2, turns: 1 },
      ],
      unknown: [],
      rows_without_turn: 1,
      turns_past_until: 0,
      turns_before_since: 1,
    });
    // Active: s1 (b3), s2 (c, d), s3 (n1), s4 (its message at 15:00); s5's message is in February.
    expect(r.cards).toMatchObject({ tasks: 3, sessions: 4, subagent_contexts: 5, tasks_with_subagents: 2, sessions_with_subagents: 3 });
    expect(r.tokens).toMatchObject({ rows: 5, settled: 5, measured: 4, unmeasured: 1, total_tokens: 1_500 + 250_000 + 7 + 3_000, outstanding: 0 });
    expect(r.executions).toEqual({ distinct: 3, identified_rows: 4, unknown_rows: 1, unknown_backfill_rows: 0, unknown_live_rows_since_execution_since: 1 });
    expect(r.caveats.some((c) => /^1 turn with subagents in the window began before since/.test(c))).toBe(true);
    // since == capture_since: nothing in this window is before it.
    expect(r.caveats.some((c) => /^Before subagent_context_capture_since/.test(c))).toBe(false);
  });

  it('a window that cuts turn F: counted whole where it began, and not again in the next window', async () => {
    const first = await db.store().report({ since: '2026-03-03T00:00:00Z', until: '2026-03-04T00:00:00Z' });
    expect(first.provenance.rows).toBe(1); // f1 only
    expect(first.fan_out).toMatchObject({ known: [{ subagents: 2, turns: 1 }], unknown: [], turns_past_until: 1, turns_before_since: 0 });
    expect(first.caveats.some((c) => /^1 turn continues at or after until/.test(c))).toBe(true);
    const next = await db.store().report({ since: '2026-03-04T00:00:00Z' });
    expect(next.provenance.rows).toBe(1); // f2 only
    expect(next.fan_out).toMatchObject({ known: [], unknown: [], turns_past_until: 0, turns_before_since: 1 });
    expect(next.tokens).toMatchObject({ rows: 1, settled: 0, outstanding: 1, total_tokens: 0, mean_tokens: null });
  });

  it("taskIds scopes every figure through the session's task, not the row's own task_id", async () => {
    const t2 = await db.store().report({ taskIds: ['T2'] });
    // s3: e1, n1 (its own task_id says T9), f1, f2.
    expect(t2.task_ids).toEqual(['T2']);
    expect(t2.provenance).toEqual({ rows: 4, live: 4, backfill: 0, live_before_capture_since: 1, shadowed_backfill_rows: 0 });
    expect(t2.fan_out).toMatchObject({
      known: [
        { subagents: 1, turns: 1 },
        { subagents: 2, turns: 1 },
      ],
      unknown: [],
      rows_without_turn: 1,
    });
    expect(t2.cards).toMatchObject({ tasks: 1, sessions: 1, subagent_contexts: 4 });
    expect(t2.tokens).toMatchObject({ settled: 3, measured: 3, total_tokens: 999 + 3_000 + 12_000 });
    expect(t2.executions).toMatchObject({ distinct: 2, unknown_rows: 0 });
    expect(t2.caveats.some((c) => /^Scoped to 1 task, through each session's own task/.test(c))).toBe(true);

    // The row's own task_id is not an authorization path.
    const t9 = await db.store().report({ taskIds: ['T9'] });
    expect(t9.provenance.rows).toBe(0);
    expect(t9.cards).toMatchObject({ tasks: 0, sessions: 0 });

    // A task with a session but no subagent; two tasks at once (duplicates collapse).
    expect((await db.store().report({ taskIds: ['T3'] })).cards).toMatchObject({
      tasks: 1,
      sessions: 1,
      subagent_contexts: 0,
      sessions_per_card: 1,
      contexts_per_card: 1,
    });
    const both = await db.store().report({ taskIds: ['T2', 'T1', 'T2'] });
    expect(both.task_ids).toEqual(['T2', 'T1']);
    expect(both.provenance.rows).toBe(13);
    expect(both.cards).toMatchObject({ tasks: 2, sessions: 3 });
  });

  it('an empty taskIds list scopes to no task: every figure is 0, never "every task"', async () => {
    const r: SubagentContextReport = await db.store().report({ taskIds: [] });
    expect(r.provenance).toEqual({ rows: 0, live: 0, backfill: 0, live_before_capture_since: 0, shadowed_backfill_rows: 0 });
    expect(r.fan_out).toMatchObject({ known: [], unknown: [], rows_without_turn: 0 });
    expect(r.cards).toMatchObject({ tasks: 0, sessions: 0, subagent_contexts: 0, sessions_per_card: null, contexts_per_card: null });
    expect(r.tokens).toMatchObject({ ...zeroTokens, outstanding: 0, by_source: [], by_subagent_type: [], by_model: [], distribution: [] });
    expect(r.executions).toEqual({ distinct: 0, identified_rows: 0, unknown_rows: 0, unknown_backfill_rows: 0, unknown_live_rows_since_execution_since: 0 });
  });
});
