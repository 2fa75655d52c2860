// The default clock (createWallClock) gives wall-clock instants, as the spec's time.Now().UTC()
// does: it used to read Date.now() once and then advance by the monotonic hrtime, which counts
// neither a suspend nor an NTP/VM clock step, so after one every instant lagged the wall clock
// (8 hours after an 8-hour sleep). Date.now() is faked (vi.spyOn) to move the wall clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWallClock } from '../src/instant.js';
import { frame } from './helpers/live-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const MS = 1_000_000n;
const HOURS_8 = 8 * 3600 * 1000;
/** The clock re-anchors past 2 ms apart, and Date.now() floors to the millisecond. */
const TOLERANCE = 3n * MS;
/** `ns` is a reading taken between two Date.now() calls that returned `fromMs` and `toMs`. */
const within = (ns: bigint, fromMs: number, toMs: number) => ns >= BigInt(fromMs) * MS - TOLERANCE && ns <= BigInt(toMs + 1) * MS + TOLERANCE;

describe('write review: the default clock follows the wall clock', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads within a few ms of Date.now(), with sub-millisecond digits, never decreasing', () => {
    const clock = createWallClock();
    const readings: bigint[] = [];
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      readings.push(clock());
      expect(within(readings[i], before, Date.now())).toBe(true);
    }
    for (let i = 1; i < readings.length; i++) expect(readings[i] >= readings[i - 1]).toBe(true);
    expect(readings.some((ns) => ns % MS !== 0n)).toBe(true); // nanoseconds within the millisecond, from hrtime
  });

  it('follows a forward step (a suspend, an NTP or VM clock step) at its next reading', () => {
    const clock = createWallClock();
    const real = Date.now.bind(Date);
    clock();
    vi.spyOn(Date, 'now').mockImplementation(() => real() + HOURS_8);
    const from = real() + HOURS_8;
    const after = clock();
    expect(within(after, from, real() + HOURS_8)).toBe(true); // it used to lag by the 8 hours
    const next = clock();
    expect(within(next, from, real() + HOURS_8) && next >= after).toBe(true);
  });

  it('after a backward step, holds its last reading until the wall clock passes it, then follows it', () => {
    const clock = createWallClock();
    let wall = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => wall);
    const before = clock();
    wall -= 60_000; // the wall clock steps back a minute
    const held = [clock(), clock(), clock()];
    expect(held).toEqual([before, before, before]); // never before an instant already handed out
    wall += 60_000 + 5; // it passes the last reading again
    const resumed = clock();
    expect(resumed > before).toBe(true);
    expect(within(resumed, wall, wall)).toBe(true);
  });
});

describeBothDialects('write review: the default clock dates rows by the wall clock', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await db.close();
  });

  it('a frame recorded after the wall clock moved 8 hours on is observed at the new time', async () => {
    const store = db.store(); // the package's default clock
    expect(await store.recordFrame(frame({ toolCallId: 'before' }))).toBe('persisted');
    const real = Date.now.bind(Date);
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + HOURS_8);
    const recorded = store.recordFrame(frame({ toolCallId: 'after' })); // the clock is read before the call returns
    const wallMs = Date.now();
    spy.mockRestore(); // the driver's own timers see the real clock
    expect(await recorded).toBe('persisted');
    const rows = new Map((await store.listBySession('s1')).map((r) => [r.tool_call_id, Date.parse(r.observed_at)]));
    expect(Math.abs(rows.get('after')! - wallMs)).toBeLessThanOrEqual(1000); // not 8 hours behind
    expect(rows.get('after')! - rows.get('before')!).toBeGreaterThanOrEqual(HOURS_8 - 1000);
  });
});
