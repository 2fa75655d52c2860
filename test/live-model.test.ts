// Model-based test of the live write path: hundreds of seeded random frame sequences go
// through recordFrame and, separately, through recordFrames in random chunks; after each
// sequence every row (read back through listBySession and listByTurn, so in AC-13 order) is
// compared column by column with the reference model of test/helpers/merge-model.ts, as are
// every frame's outcome and the writer counters (AC-26). On both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomChunks, randomClock, randomSequence } from './helpers/live-random-frames.js';
import { MergeModel, withoutId, type ModelOutcome } from './helpers/merge-model.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const SEQUENCES = 200;
const FIRST_SEED = 1;

describeBothDialects('live write path against the reference model', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => db.close());

  async function runSequence(seed: number, mode: 'recordFrame' | 'recordFrames') {
    const session = `${mode}-${seed}`;
    await insertSession(db, session, 'task-1');
    const { frames, turns } = randomSequence(seed, session, `${session}-missing`);
    const model = new MergeModel(new Set([session]));
    const modelClock = randomClock(seed);
    const store = db.store({ clock: randomClock(seed), logger: { warn: () => {} } });

    const outcomes: string[] = [];
    if (mode === 'recordFrame') {
      for (const frame of frames) outcomes.push(await store.recordFrame(frame as never));
    } else {
      for (const chunk of randomChunks(seed, frames)) outcomes.push(...(await store.recordFrames(chunk as never)));
    }
    const expected: ModelOutcome[] = frames.map((f) => model.record(f, modelClock));

    for (const key of Object.keys(tally) as (keyof typeof tally)[]) if (key in model.counters) tally[key] += model.counters[key as keyof typeof model.counters];
    const context = `seed ${seed}, ${mode}`;
    expect(outcomes, context).toEqual(expected);
    expect(store.counters(), context).toEqual(model.counters);
    const rows = await store.listBySession(session);
    expect(rows.map(withoutId), context).toEqual(model.bySession(session));
    for (const turn of turns) {
      expect((await store.listByTurn(session, turn)).map(withoutId), `${context}, ${turn}`).toEqual(model.byTurn(session, turn));
    }
    for (const row of rows) {
      if (row.settled_at !== null) tally.settledRows++;
      if (row.tool_use_count === 0) tally.reportedZeroToolUses++;
      if (row.agent_execution_id === 'unknown') tally.unknownRows++;
      if (row.turn_id === null) tally.rowsWithoutTurn++;
      if (typeof row.total_tokens === 'bigint') tally.bigintMetrics++;
    }
    return rows;
  }

  // What the sequences exercised, so the generator cannot silently stop producing a case.
  const tally = {
    persisted: 0,
    skipped_no_identity: 0,
    failed: 0,
    anomalous_value: 0,
    unknown_execution: 0,
    settledRows: 0,
    reportedZeroToolUses: 0,
    unknownRows: 0,
    rowsWithoutTurn: 0,
    bigintMetrics: 0,
  };

  it(`${SEQUENCES} random sequences, frame by frame and in batches, match the model and each other`, async () => {
    let rowsSeen = 0;
    for (let seed = FIRST_SEED; seed < FIRST_SEED + SEQUENCES; seed++) {
      const single = await runSequence(seed, 'recordFrame');
      const batched = await runSequence(seed, 'recordFrames');
      // Same frames, same clock: the same final rows either way (apart from id and session).
      const strip = (rows: typeof single) => rows.map(({ id: _id, task_session_id: _s, ...rest }) => rest);
      expect(strip(batched), `seed ${seed}`).toEqual(strip(single));
      rowsSeen += single.length;
    }
    // The generator must actually produce rows, most of them merged from several frames, and
    // every outcome and qualifier many times over.
    expect(rowsSeen).toBeGreaterThan(SEQUENCES * 2);
    expect(tally.persisted).toBeGreaterThan(rowsSeen * 2);
    for (const [name, count] of Object.entries(tally)) expect(count, name).toBeGreaterThanOrEqual(10);
  }, 180_000); // 200 sequences: 28 s of the default 60 s in a loaded full run; room for more load
});
