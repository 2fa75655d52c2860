// Concurrency (AC-14, AC-15, AC-1a): PostgreSQL with >= 8 pooled connections, and SQLite with
// two connections on one WAL file (interleaved in one process, and truly concurrent from two
// processes). A write log kept by a trigger gives the commit order per key; replaying the
// frames through the reference model in that order must give exactly the stored row, so the
// write-once columns (source, observed_at, task_id, settled_at) are the first committed
// frame's and every other column is the last committed frame's. Exactly one row per key,
// no frame lost.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, isTerminalToolStatus, type SubagentFrame, type SubagentContextRow } from '../src/index.js';
import Database from 'better-sqlite3';
import { steppingClock } from './helpers/clock.js';
import { EXEC_A } from './helpers/live-db.js';
import { installWriteLog, readWriteLog, type LogEntry } from './helpers/live-write-log.js';
import { MergeModel, modelInstant, withoutId } from './helpers/merge-model.js';
import { prng, type Prng } from './helpers/prng.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

/** A frame whose every column varies, marked (in `description`) so the write log names it. */
function contentionFrame(rng: Prng, marker: string, toolCallId: string): SubagentFrame {
  const payload: Record<string, unknown> = { description: marker };
  const set = (key: string, values: unknown[]) => {
    const v = rng.pick(values);
    if (v !== undefined) payload[key] = v;
  };
  set('model', [undefined, '', `model-${marker}`]);
  set('status', [undefined, 'started', 'completed', 'async_launched']);
  set('total_tokens', [undefined, 0, -1, 100, 275_717]);
  set('tool_use_count', [undefined, 0, 3, -2]);
  set('duration_ms', [undefined, 0, 50]);
  set('is_async', [undefined, true, false]);
  return {
    sessionId: 's1',
    taskId: rng.pick(['task-1', 'task-2']),
    turnId: rng.pick([null, '', 'turn-a', 'turn-b']),
    executionId: EXEC_A,
    toolCallId,
    toolStatus: rng.pick([null, 'pending', 'in_progress', 'in_progress', 'completed', 'failed', 'success']),
    payload,
  };
}

/** Replays the logged writes in commit order through the model; the rows must match it exactly. */
function expectRowsMatchCommitOrder(rows: SubagentContextRow[], log: LogEntry[], frames: Map<string, SubagentFrame>, keys: number) {
  const model = new MergeModel(new Set(['s1']));
  for (const entry of log) {
    const frame = frames.get(entry.marker);
    expect(frame, entry.marker).toBeDefined();
    expect(model.record(frame, () => entry.observedAtNs)).toBe('persisted');
  }
  expect(log).toHaveLength(frames.size); // every frame committed exactly once
  expect(rows).toHaveLength(keys); // one row per key
  expect(rows.map(withoutId)).toEqual(model.bySession('s1'));

  // The write-once columns, spelled out: the first committed frame's values, not the first observed.
  for (const row of rows) {
    const writes = log.filter((e) => e.toolCallId === row.tool_call_id);
    expect(writes.map((e) => e.op)).toEqual(['INSERT', ...writes.slice(1).map(() => 'UPDATE')]);
    const first = frames.get(writes[0].marker)!;
    expect(row).toMatchObject({ source: 'live', observed_at: modelInstant(writes[0].observedAtNs), task_id: first.taskId });
    const settling = writes.find((e) => isTerminalToolStatus(frames.get(e.marker)!.toolStatus));
    expect(row.settled_at).toBe(settling ? modelInstant(settling.observedAtNs) : null);
    expect(row.description).toBe(writes[writes.length - 1].marker); // last committed wins (AC-14)
  }
}

describe('live concurrency [postgres]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
    await installWriteLog(db);
  });
  afterEach(async () => db.close());

  async function hammer(frames: SubagentFrame[], keys: number) {
    const store = db.store({ clock: steppingClock(1_785_000_000_000_000_000n, 1_000n) });
    // All at once: the pool (10 connections) runs them in parallel, racing on the row locks.
    const outcomes = await Promise.all(frames.map((f) => store.recordFrame(f)));
    expect(outcomes.filter((o) => o !== 'persisted')).toEqual([]);
    expect(store.counters()).toMatchObject({ attempted: frames.length, persisted: frames.length, failed: 0 });
    const log = await readWriteLog(db);
    expect(new Set(log.map((e) => e.connection)).size).toBeGreaterThanOrEqual(8);
    expectRowsMatchCommitOrder(await store.listBySession('s1'), log, new Map(frames.map((f) => [f.payload.description!, f])), keys);
  }

  it('200 frames for one key over >= 8 connections: one row, write-once columns from the first commit (AC-14)', async () => {
    const rng = prng(14);
    await hammer(
      Array.from({ length: 200 }, (_, i) => contentionFrame(rng, `f${i}`, 'toolu_hot')),
      1,
    );
  });

  it('240 frames over 40 keys, interleaved, over >= 8 connections: one row per key, none lost (AC-15)', async () => {
    const rng = prng(15);
    const frames = Array.from({ length: 240 }, (_, i) => contentionFrame(rng, `f${i}`, `toolu_${i % 40}`));
    await hammer(frames, 40);
  });
});

describe('live concurrency [sqlite]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('sqlite', 'package');
    await insertSession(db, 's1', 'task-1');
    await installWriteLog(db);
  });
  afterEach(async () => db.close());

  it('two connections on one WAL file, writes interleaved in one process: nothing lost', async () => {
    const second = new Database(db.location, { timeout: 5_000 });
    try {
      second.pragma('foreign_keys = ON');
      const clock = steppingClock();
      const stores = [db.store({ clock }), createSqliteStore(second, { clock })];
      const rng = prng(16);
      const frames = Array.from({ length: 120 }, (_, i) => contentionFrame(rng, `f${i}`, i % 3 === 0 ? 'toolu_hot' : `toolu_${i % 7}`));
      for (let i = 0; i < frames.length; i++) expect(await stores[i % 2].recordFrame(frames[i])).toBe('persisted');
      const rows = await stores[1].listBySession('s1');
      expectRowsMatchCommitOrder(
        rows,
        await readWriteLog(db),
        new Map(frames.map((f) => [f.payload.description!, f])),
        new Set(frames.map((f) => f.toolCallId)).size,
      );
      expect(await stores[0].listBySession('s1')).toEqual(rows); // both connections read the same rows
    } finally {
      second.close();
    }
  });

  it('two processes, one connection each, writing the same keys at once with a busy timeout: nothing lost', async () => {
    const rng = prng(17);
    const FRAMES = 200;
    const ROUND = 10; // frames each writer records per round; both write each round at once
    const jobs = ['A', 'B'].map((p) =>
      Array.from({ length: FRAMES }, (_, i) => contentionFrame(rng, `${p}${i}`, i % 2 === 0 ? 'toolu_hot' : `toolu_${i % 20}`)),
    );
    const script = fileURLToPath(new URL('./helpers/live-sqlite-writer-process.ts', import.meta.url));
    const children = jobs.map(() => fork(script, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    // A writer that fails exits non-zero: its pending reply rejects instead of hanging. (It exits
    // 0 only after its last reply.)
    const failures = children.map(
      (c, i) => new Promise<never>((_, reject) => c.once('exit', (code) => code !== 0 && reject(new Error(`writer ${i} exited early (${code})`)))),
    );
    failures.forEach((f) => f.catch(() => {})); // observed through the races below
    const reply = <T>(i: number) => Promise.race([new Promise<T>((resolve) => children[i].once('message', resolve as never)), failures[i]]);
    try {
      await Promise.all(children.map((c, i) => (c.send({ file: db.location, frames: jobs[i], busyTimeoutMs: 20_000, pauseMs: 1 }), reply(i))));
      for (let from = 0; from < FRAMES; from += ROUND) {
        await Promise.all(children.map((c, i) => (c.send({ from, to: from + ROUND }), reply(i))));
      }
      const results = await Promise.all(
        children.map((c, i) => (c.send('finish'), reply<{ outcomes: string[]; counters: Record<string, number>; warns: unknown[] }>(i))),
      );
      for (const [i, r] of results.entries()) {
        expect(r.warns, `writer ${i}`).toEqual([]);
        expect(
          r.outcomes.filter((o) => o !== 'persisted'),
          `writer ${i}`,
        ).toEqual([]);
        expect(r.counters).toMatchObject({ attempted: FRAMES, persisted: FRAMES, failed: 0 });
      }
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill();
    }
    const log = await readWriteLog(db);
    // The two writers really interleaved on the hot key (not one after the other): every round
    // holds both writers' hot frames, so each of the 20 rounds adds at least one switch.
    const hot = log
      .filter((e) => e.toolCallId === 'toolu_hot')
      .map((e) => e.marker[0])
      .join('');
    expect(hot.match(/AB|BA/g)?.length ?? 0).toBeGreaterThanOrEqual(20);
    const frames = new Map(jobs.flat().map((f) => [f.payload.description!, f]));
    const keys = new Set(jobs.flat().map((f) => f.toolCallId)).size;
    expect(keys).toBe(11); // the hot key and ten shared ones
    expectRowsMatchCommitOrder(await db.store().listBySession('s1'), log, frames, keys);
  });
});
