// AC-22's named overlap in the report: a subagent captured live with a real execution id
// before the backfill ran has two rows, the live one and the backfill's 'unknown' one, under
// different keys but the same (task_session_id, tool_call_id). They are one invocation: the
// fan-out, token, subagent type and card figures count it once, by its live row, and the
// report discloses how many backfilled rows it left out (provenance.shadowed_backfill_rows and
// a note in both views, AC-25). Live rows that differ only in execution stay two invocations,
// and a backfilled row with no live twin is counted as before.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatReport, renderReportHtml } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const T0 = 1_785_000_000_000_000_000n; // capture_since: the backfill retry that succeeded
const BOOT1 = T0 - 86_400n * SECOND; // live capture ran from here, before any backfill
const EXEC = '6f1c1b7e-2f0a-4d55-9a43-0d6c1e0b7a01';
const NOTE = /^3 backfilled rows record the same subagent as a live row \(the same session and tool call/;

describeBothDialects('report: a backfilled row beside a live row of the same tool call', (dialect) => {
  let db: TestDb;
  const at = (ns: bigint) => hostTimestamp(db, ns);
  const seed = async (r: {
    id: string;
    turn: string;
    toolCallId: string;
    source: 'live' | 'backfill';
    exec?: string;
    tokens: number;
    type: string;
    k: number;
  }) => {
    const created = BOOT1 + 3_600n * SECOND + BigInt(r.k) * SECOND;
    await insertSubagentRow(db, {
      id: r.id,
      sessionId: 's1',
      turnId: r.turn,
      toolCallId: r.toolCallId,
      source: r.source,
      executionId: r.exec ?? 'unknown',
      subagentType: r.type,
      totalTokens: r.tokens,
      observedAt: at(created + (r.source === 'live' ? 1_000n : 0n)),
      settledAt: at(created + 5n * SECOND),
    });
  };

  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await setKeys(db, {
      [KEY.captureSince]: formatKeyInstant(T0),
      [KEY.backfillThrough]: formatKeyInstant(BOOT1 + 3_700n * SECOND),
      [KEY.executionSince]: formatKeyInstant(BOOT1),
    });
  });
  afterEach(async () => db.close());

  it('counts each invocation once and says how many backfilled rows it left out', async () => {
    // turn-1: three subagents, each recorded live and backfilled.
    for (let k = 0; k < 3; k++) {
      const common = { turn: 'turn-1', toolCallId: `toolu_${k}`, tokens: 10_000, type: 'reviewer', k };
      await seed({ ...common, id: `live-${k}`, source: 'live', exec: EXEC });
      await seed({ ...common, id: `bf-${k}`, source: 'backfill' });
    }
    // turn-2: one tool call id reused by two executions: two invocations, both live.
    await seed({ id: 'e1', turn: 'turn-2', toolCallId: 'toolu_3', source: 'live', exec: EXEC, tokens: 1_000, type: 'tester', k: 10 });
    await seed({ id: 'e2', turn: 'turn-2', toolCallId: 'toolu_3', source: 'live', exec: 'other-exec', tokens: 1_000, type: 'tester', k: 11 });
    // turn-3: a backfilled row with no live twin.
    await seed({ id: 'bf-only', turn: 'turn-3', toolCallId: 'toolu_4', source: 'backfill', tokens: 500, type: 'explorer', k: 20 });

    const r = await db.store().report();
    const turns = [...r.fan_out.unknown, ...r.fan_out.known].sort((a, b) => a.subagents - b.subagents);
    expect(turns).toEqual([
      { subagents: 1, turns: 1 },
      { subagents: 2, turns: 1 },
      { subagents: 3, turns: 1 },
    ]);
    expect(r.fan_out.rows_without_turn).toBe(0);
    expect(r.provenance).toEqual({ rows: 9, live: 5, backfill: 4, live_before_capture_since: 5, shadowed_backfill_rows: 3 });
    expect(r.tokens).toMatchObject({ rows: 6, settled: 6, measured: 6, total_tokens: 32_500 });
    expect(r.tokens.by_source.map((g) => [g.source, g.rows, g.total_tokens])).toEqual([
      ['live', 5, 32_000],
      ['backfill', 1, 500],
    ]);
    expect(r.tokens.by_subagent_type.map((g) => [g.subagent_type, g.rows, g.total_tokens])).toEqual([
      ['reviewer', 3, 30_000],
      ['tester', 2, 2_000],
      ['explorer', 1, 500],
    ]);
    expect(r.tokens.distribution).toEqual([
      { from: 500, to: 1_000, subagents: 1 },
      { from: 1_000, to: 2_000, subagents: 2 },
      { from: 2_000, to: 5_000, subagents: 0 },
      { from: 5_000, to: 10_000, subagents: 0 },
      { from: 10_000, to: 20_000, subagents: 3 },
    ]);
    expect(r.cards).toMatchObject({ tasks: 1, sessions: 1, subagent_contexts: 6, contexts_per_card: 7 });
    // Executions still count rows: the backfilled copies are 'unknown' rows.
    expect(r.executions).toMatchObject({ identified_rows: 5, unknown_rows: 4, unknown_backfill_rows: 4 });

    expect(r.caveats.filter((c) => NOTE.test(c))).toHaveLength(1);
    const note = '3 backfilled rows record the same subagent as a live row (the same session and tool call: captured live before the backfill ran)';
    expect(formatReport(r)).toContain(note);
    expect(renderReportHtml(r, { generatedAt: new Date(0) })).toContain(note);
  });

  it('without a live twin nothing is left out, and no note says so', async () => {
    await seed({ id: 'bf-0', turn: 'turn-1', toolCallId: 'toolu_0', source: 'backfill', tokens: 700, type: 'reviewer', k: 0 });
    await seed({ id: 'live-1', turn: 'turn-1', toolCallId: 'toolu_1', source: 'live', exec: EXEC, tokens: 300, type: 'reviewer', k: 1 });
    const r = await db.store().report();
    expect(r.provenance.shadowed_backfill_rows).toBe(0);
    expect([...r.fan_out.unknown, ...r.fan_out.known]).toEqual([{ subagents: 2, turns: 1 }]);
    expect(r.tokens).toMatchObject({ rows: 2, total_tokens: 1_000 });
    expect(r.cards.subagent_contexts).toBe(2);
    expect(r.caveats.some((c) => /record the same subagent as a live row/.test(c))).toBe(false);
  });
});
