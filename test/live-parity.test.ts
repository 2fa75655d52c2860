// Dialect parity (DESIGN §2): the same frames with the same clock produce the same outcomes,
// the same counters and identical rows apart from `id` on SQLite and on PostgreSQL, through
// recordFrame and recordFrames alike. One database per dialect, opened side by side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomChunks, randomClock, randomSequence } from './helpers/live-random-frames.js';
import { withoutId } from './helpers/merge-model.js';
import { DIALECTS, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const SEEDS = 60;
const sessionOf = (seed: number) => `parity-${seed}`;

describe('dialect parity of the live write path', () => {
  const dbs: TestDb[] = [];
  beforeAll(async () => {
    for (const dialect of DIALECTS) {
      const db = await openTestDb(dialect, 'package');
      for (let seed = 1000; seed < 1000 + SEEDS; seed++) await insertSession(db, sessionOf(seed), 'task-1');
      dbs.push(db);
    }
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
  });

  it(`${SEEDS} random sequences give identical rows, outcomes and counters on both dialects`, async () => {
    const results = [];
    for (const db of dbs) {
      // One store per dialect; the whole run shares one clock stream per dialect, identical across them.
      const clock = randomClock(4242);
      const store = db.store({ clock, logger: { warn: () => {} } });
      const outcomes: string[] = [];
      const rows = [];
      const turns = [];
      for (let seed = 1000; seed < 1000 + SEEDS; seed++) {
        const session = sessionOf(seed);
        const { frames } = randomSequence(seed, session, `${session}-missing`);
        if (seed % 2 === 0) for (const f of frames) outcomes.push(await store.recordFrame(f as never));
        else for (const chunk of randomChunks(seed, frames)) outcomes.push(...(await store.recordFrames(chunk as never)));
        rows.push(...(await store.listBySession(session)).map(withoutId));
        turns.push(...(await store.listByTurn(session, 'turn-1')).map(withoutId));
      }
      results.push({ outcomes, counters: store.counters(), rows, turns });
    }
    const [sqlite, postgres] = results;
    expect(postgres.outcomes).toEqual(sqlite.outcomes);
    expect(postgres.counters).toEqual(sqlite.counters);
    expect(postgres.rows).toEqual(sqlite.rows);
    expect(postgres.turns).toEqual(sqlite.turns);
    // Enough rows, with enough variety, for the comparison to mean something.
    expect(sqlite.rows.length).toBeGreaterThan(100);
    expect(new Set(sqlite.rows.map((r) => r.observed_at)).size).toBeLessThan(sqlite.rows.length); // ties exist
    expect(sqlite.rows.some((r) => typeof r.total_tokens === 'bigint')).toBe(true);
    expect(sqlite.rows.some((r) => r.settled_at !== null)).toBe(true);
  });
});
