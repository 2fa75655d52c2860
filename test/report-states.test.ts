// The report reads its state and boundaries from the keys, never from rows (AC-24c): the same
// two rows are classified differently in each of the four states and under each value
// backfill_through can take (an instant, the '' sentinel, absent, unreadable), and the
// caveats change with them. Both dialects.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseInstant } from '../src/instant.js';
import type { SubagentContextReport } from '../src/index.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { setKeys } from './helpers/activation-keys.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const C = 'subagent_context_capture_since';
const B = 'subagent_context_backfill_through';
const E = 'subagent_context_execution_since';
const CAPTURE = '2026-03-01T12:00:00.000000000Z';
const BACKFILL = '2026-03-01T10:00:00.000000000Z';

type Keys = Partial<Record<typeof C | typeof B | typeof E, string>>;

/** turn-old: one backfilled 'unknown' row at 08:00; turn-new: one live row with an execution id at 13:00. */
async function seed(db: TestDb, keys: Keys): Promise<void> {
  const at = (iso: string) => hostTimestamp(db, parseInstant(iso)!);
  await insertSession(db, 's1', 'T1');
  await insertSubagentRow(db, {
    id: 'old',
    sessionId: 's1',
    taskId: 'T1',
    turnId: 'turn-old',
    source: 'backfill',
    executionId: 'unknown',
    observedAt: at('2026-03-01T08:00:00Z'),
    settledAt: null,
    totalTokens: null,
  });
  await insertSubagentRow(db, {
    id: 'new',
    sessionId: 's1',
    taskId: 'T1',
    turnId: 'turn-new',
    source: 'live',
    executionId: 'exec-1',
    observedAt: at('2026-03-01T13:00:00Z'),
    settledAt: null,
    totalTokens: null,
  });
  await setKeys(db, keys);
}

const ONE = [{ subagents: 1, turns: 1 }];
const TWO = [{ subagents: 1, turns: 2 }];

describeBothDialects('report: state and boundaries come from the keys', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(async () => db.close());

  async function report(keys: Keys): Promise<SubagentContextReport> {
    await seed(db, keys);
    return db.store().report();
  }
  const caveat = (r: SubagentContextReport, re: RegExp) => r.caveats.some((c) => re.test(c));

  it('activated: fan-out known from backfill_through; executions counted', async () => {
    const r = await report({ [C]: CAPTURE, [B]: BACKFILL, [E]: CAPTURE });
    expect(r.state).toBe('activated');
    expect(r.fan_out).toMatchObject({ known_from: BACKFILL, known_from_key: 'backfill_through', known: ONE, unknown: ONE });
    expect(r.executions).toMatchObject({ distinct: 1, unknown_rows: 1, unknown_live_rows_since_execution_since: 0 });
    expect(r.provenance.live_before_capture_since).toBe(0);
    expect(caveat(r, /AC-24[abc]\b/)).toBe(false);
  });

  it('capture_only (AC-24b): no agent_execution_id is an execution identity, so none is counted', async () => {
    const r = await report({ [C]: CAPTURE, [B]: BACKFILL });
    expect(r.state).toBe('capture_only');
    expect(r.executions).toEqual({
      distinct: null,
      identified_rows: 1,
      unknown_rows: 1,
      unknown_backfill_rows: 1,
      unknown_live_rows_since_execution_since: null,
    });
    expect(r.fan_out).toMatchObject({ known: ONE, unknown: ONE });
    expect(caveat(r, /^The execution-id upgrade \(migration step record_execution_since\) has not applied \(AC-24b\)/)).toBe(true);
  });

  it('execution_only (AC-24a): no coverage boundary, all fan-out unknown, execution ids trusted', async () => {
    const r = await report({ [E]: CAPTURE });
    expect(r.state).toBe('execution_only');
    expect(r.fan_out).toMatchObject({ known_from: null, known_from_key: null, known: [], unknown: TWO });
    expect(r.provenance.live_before_capture_since).toBeNull();
    expect(r.executions.distinct).toBe(1);
    expect(caveat(r, /^The backfill has not succeeded \(AC-24c, AC-24a\)/)).toBe(true);
    expect(caveat(r, /^Before subagent_context_capture_since/)).toBe(false);
  });

  it('not_activated: rows are still counted, no boundary, no execution count', async () => {
    const r = await report({});
    expect(r.state).toBe('not_activated');
    expect(r.keys).toEqual({ capture_since: null, backfill_through: null, execution_since: null });
    expect(r.provenance).toEqual({ rows: 2, live: 1, backfill: 1, live_before_capture_since: null, shadowed_backfill_rows: 0 });
    expect(r.fan_out).toMatchObject({ known_from: null, known: [], unknown: TWO });
    expect(r.executions.distinct).toBeNull();
    expect(caveat(r, /^Not activated \(AC-24c\)/)).toBe(true);
  });

  it("backfill_through = '' is a sentinel (AC-24f): fan-out known from capture_since, never read as a time", async () => {
    const r = await report({ [C]: CAPTURE, [B]: '', [E]: CAPTURE });
    expect(r.keys.backfill_through).toBe('');
    expect(r.fan_out).toMatchObject({ known_from: CAPTURE, known_from_key: 'capture_since', known: ONE, unknown: ONE });
    expect(caveat(r, /^subagent_context_backfill_through is '' \(AC-24f\): the backfill matched no subagent message/)).toBe(true);
  });

  it('capture_since without backfill_through (a partial pair, AC-24d): known only from capture_since', async () => {
    const r = await report({ [C]: '2026-03-01T07:00:00.000000000Z', [E]: CAPTURE });
    expect(r.fan_out).toMatchObject({ known_from: '2026-03-01T07:00:00.000000000Z', known_from_key: 'capture_since', known: TWO, unknown: [] });
    expect(caveat(r, /^subagent_context_backfill_through is absent \(a partial key pair the next boot completes, AC-24d\)/)).toBe(true);
  });

  it('an unreadable backfill_through bounds nothing: known only from capture_since, disclosed', async () => {
    const r = await report({ [C]: CAPTURE, [B]: 'last tuesday', [E]: CAPTURE });
    expect(r.fan_out).toMatchObject({ known_from: CAPTURE, known_from_key: 'capture_since', known: ONE, unknown: ONE });
    expect(caveat(r, /^subagent_context_backfill_through holds "last tuesday", which is not an instant.*known only from subagent_context_capture_since/)).toBe(
      true,
    );
  });

  it('an unreadable capture_since publishes no boundary at all (the safe direction)', async () => {
    const r = await report({ [C]: 'garbage', [B]: BACKFILL, [E]: CAPTURE });
    expect(r.state).toBe('activated'); // presence decides the state (AC-24c)
    expect(r.fan_out).toMatchObject({ known_from: null, known: [], unknown: TWO });
    expect(r.provenance.live_before_capture_since).toBeNull();
    expect(caveat(r, /^subagent_context_capture_since holds "garbage", which is not an instant/)).toBe(true);
  });

  it('second-precision keys from the pre-amendment build are used as they are, and disclosed (AC-24 point 5)', async () => {
    const r = await report({ [C]: '2026-03-01T12:00:00Z', [B]: '2026-03-01T10:00:00Z', [E]: CAPTURE });
    expect(r.fan_out).toMatchObject({ known_from: BACKFILL, known: ONE, unknown: ONE });
    expect(caveat(r, /^subagent_context_backfill_through \(2026-03-01T10:00:00Z\) has second precision/)).toBe(true);
    expect(caveat(r, /^subagent_context_capture_since \(2026-03-01T12:00:00Z\) has second precision/)).toBe(true);
  });
});
