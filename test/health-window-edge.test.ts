// The proof that the window's bare-column bounds never drop a row (src/sqlite/text-floor.ts,
// docs/timestamps.md "Index-friendliness"): SQLite's statements bound the host's text column by
// :sinceFloor (since − 23:59, to the second) and, on the index entry alone, by
// `col >= substr(:since, 1, 19) OR substr(col, -6, 1) = '-'`. Every accepted form — ' ' or 'T',
// nine or trimmed fraction digits (none at a whole second), no zone, Z, ±00:00, and offsets up to
// ±23:59 — is seeded 1 µs before, at and 1 µs after the window's start, for starts on a whole
// second, on a fraction with trailing zeros, and at midnight UTC (where every negative offset is
// on the previous local date). checkHealth() and report() must count exactly the rows an oracle
// in TypeScript (parseInstant) puts in the window. PostgreSQL's columns are TIMESTAMP: the same
// instants, the same counts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { countShortfallSinceCapture } from '../generated/sqlite/index.js';
import { formatKeyInstant, formatMicros, formatUtc9, parseInstant } from '../src/instant.js';
import { sqliteSinceFloor } from '../src/sqlite/text-floor.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { MICRO } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const MINUTE = 60_000_000_000n;
/** Zone suffixes and their offsets in minutes. SQLite's date parser reads ±14:59 at most. */
const ZONES: [string, number][] = [
  ['', 0],
  ['Z', 0],
  ['+00:00', 0],
  ['-00:00', 0],
  ['+05:30', 330],
  ['-03:00', -180],
  ['+14:59', 899],
  ['-14:59', -899],
  ['+23:59', 1439],
  ['-23:59', -1439],
];
const SQLITE_MAX_OFFSET = 899;
const STARTS = [1_785_000_000_000_000_000n, 1_785_000_000_270_000_000n, 1_785_024_000_000_000_000n];
const DELTAS = [-MICRO, 0n, MICRO];

interface Seed {
  text: string;
  ns: bigint;
  offset: number;
}

/** Every accepted text form of ns: each zone, ' ' or 'T', nine or trimmed fraction digits. */
function forms(ns: bigint): Seed[] {
  return ZONES.flatMap(([zone, offset]) => {
    const local = formatUtc9(ns + BigInt(offset) * MINUTE);
    return [' ', 'T'].flatMap((sep) =>
      [local, local.replace(/\.?0+$/, '')].map((digits) => {
        const text = `${digits.replace(' ', sep)}${zone}`;
        expect(parseInstant(text), text).toBe(ns);
        return { text, ns, offset };
      }),
    );
  });
}

/** The shortfall statement with a chosen :sinceFloor, optionally without its negative-offset term. */
function sqliteShortfallAt(db: TestDb, startNs: bigint, sinceFloor: string, o: { withoutNegativeOffsetTerm?: boolean } = {}): number {
  let sql = countShortfallSinceCapture.sql;
  if (o.withoutNegativeOffsetTerm) {
    const term = " OR substr(m.created_at, -6, 1) = '-'";
    expect(sql).toContain(term);
    sql = sql.replace(term, '');
  }
  const row = db.sqlite!.prepare(sql).get({ since: formatUtc9(startNs), sinceFloor }) as { shortfall: number };
  return row.shortfall;
}

describeBothDialects("health and report: the window's edge in every stored form", (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());

  /** Seeds one message and one row per (delta, form); returns the seeds. */
  async function seed(startNs: bigint): Promise<Seed[]> {
    await db.query('DELETE FROM task_session_messages');
    await db.query('DELETE FROM task_session_subagents');
    await db.query('DELETE FROM kandev_meta');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(startNs) });
    const seeds = DELTAS.flatMap((d) => forms(startNs + d));
    for (const [i, s] of seeds.entries()) {
      const text = byDialect(dialect, { sqlite: s.text, postgres: formatMicros(s.ns) });
      await insertSubagentMessage(db, { id: `m${i}`, sessionId: 's1', toolCallId: `tc-m${i}`, createdAt: text });
      await insertSubagentRow(db, { id: `r${i}`, sessionId: 's1', toolCallId: `tc-r${i}`, observedAt: text });
    }
    return seeds;
  }

  /** The oracle: at or after the start, and (SQLite) an offset its date parser reads. */
  const inWindow = (s: Seed, startNs: bigint) => s.ns >= startNs && byDialect(dialect, { sqlite: Math.abs(s.offset) <= SQLITE_MAX_OFFSET, postgres: true });

  it('checkHealth() and report() count exactly the rows at or after the start', async () => {
    for (const start of STARTS) {
      const seeds = await seed(start);
      const inside = seeds.filter((s) => inWindow(s, start));
      // Each delta contributes, so a bound that drops one side's rows changes the count.
      expect(inside.length).toBeGreaterThan(0);
      expect(inside.length).toBeLessThan(seeds.length);
      const newest = inside.reduce((a, b) => (b.ns > a ? b.ns : a), 0n);
      const health = await db.store().checkHealth();
      expect(health, `start ${formatKeyInstant(start)}`).toMatchObject({
        shortfall: inside.length,
        excess: inside.length,
        collisions: 0,
        last_observed_at: `${formatMicros(newest).replace(' ', 'T')}Z`,
      });
      const report = await db.store().report({ since: formatKeyInstant(start) });
      expect(report.provenance.rows, `start ${formatKeyInstant(start)}`).toBe(inside.length);
    }
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it("SQLite's date parser reads offsets up to ±14:59 and no further (the oracle's premise)", async () => {
      const read = async (zone: string) =>
        (await db.query<{ t: string | null }>(`SELECT strftime('%Y-%m-%d %H:%M:%S', $1) AS t`, [`2026-07-25 17:20:00${zone}`]))[0].t;
      expect(await read('+14:59')).toBe('2026-07-25 02:21:00');
      expect(await read('-14:59')).toBe('2026-07-26 08:19:00');
      expect(await read('+15:00')).toBeNull();
      expect(await read('-23:59')).toBeNull();
    });

    it('the seeds reach the edge: a floor 14:00 before the start, or no negative-offset term, drops rows the window holds', async () => {
      for (const start of STARTS) {
        const seeds = await seed(start);
        const expected = seeds.filter((s) => inWindow(s, start)).length;
        expect(sqliteShortfallAt(db, start, sqliteSinceFloor(start))).toBe(expected);
        // The -14:59 rows at the start have local text 14:59 before it.
        expect(sqliteShortfallAt(db, start, formatUtc9(start - 840n * MINUTE).slice(0, 19))).toBeLessThan(expected);
        // The -03:00 and -14:59 rows at or after the start sort before its second as text.
        expect(sqliteShortfallAt(db, start, sqliteSinceFloor(start), { withoutNegativeOffsetTerm: true })).toBeLessThan(expected);
      }
    });
  }
});
