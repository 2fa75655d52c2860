// Issue 34: the upgrade on a host that keeps writing — inserting sessions and messages,
// editing old messages, deleting sessions (their messages by cascade) every few milliseconds
// — while the backfill runs for seconds. The single INSERT … SELECT failed there on
// PostgreSQL with 23503 (a session it had read was deleted before its end), every boot; on
// SQLite the host's writer waited for the whole statement. What must hold:
//   - the backfill completes (both activation keys written, no failed step, no error);
//   - rows exist for exactly the qualifying messages of the sessions that survive: none for a
//     deleted session, none missing for a surviving one;
//   - no host write failed, and (SQLite) its longest wait is about one chunk, far below the
//     backfill's own duration.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { SUBAGENT_EVERY, backfilledToolCalls, seedBusyHostStore, sessionId, survivingQualifyingToolCalls } from './helpers/busy-host-store.js';
import type { BusyHostReport } from './helpers/busy-host-writer-process.js';
import { byDialect } from './helpers/by-dialect.js';
import { metaKeys, stepStatuses } from './helpers/migration-db.js';
import { seededRandom } from '../src/demo/seeded-random.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SESSIONS = 6_000;
const MESSAGES = 600_000;

describeBothDialects('runMigrations: the backfill beside a busy host (issue 34)', (dialect) => {
  let db: TestDb;
  afterEach(async () => db?.close());

  it('completes while the host inserts, edits and deletes sessions; rows exactly for the surviving sessions', async () => {
    db = await openTestDb(dialect, 'package');
    await seedBusyHostStore(db, { sessions: SESSIONS, messages: MESSAGES });
    const rng = seededRandom(34);
    const deletable = Array.from({ length: SESSIONS }, (_, s) => sessionId(s));
    for (let i = deletable.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [deletable[i], deletable[j]] = [deletable[j], deletable[i]];
    }
    const editable = Array.from({ length: 500 }, (_, k) => `m${k * SUBAGENT_EVERY + 1}`);

    const writer = fork(fileURLToPath(new URL('./helpers/busy-host-writer-process.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const next = () => new Promise<unknown>((resolve) => writer.once('message', resolve));
    writer.send({ dialect, location: db.location, deletable, editable, periodMs: 10 });
    expect(await next()).toBe('ready');
    writer.send('start');
    expect(await next()).toBe('started');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the host is already busy at boot

    const started = Date.now();
    // Each chunk's end, as the backfill reports it: the intervals between them are the chunks
    // (with the pause after each and the progress figure), the unit the host's wait is judged in.
    const chunkEnds: number[] = [0];
    const report = await db.store().runMigrations({ onBackfillProgress: (p) => void chunkEnds.push(p.ms) });
    const ended = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
    writer.send('stop');
    const host = (await next()) as BusyHostReport;

    expect(stepStatuses(report), JSON.stringify(report.steps)).toMatchObject({ backfill_subagent_contexts: 'applied' });
    expect(report.ok).toBe(true);
    expect(host.errors, host.errors.slice(0, 3).join(' / ')).toEqual([]);
    // The race really ran: sessions were deleted while the backfill was running.
    const deletedDuring = host.deleted.filter((d) => d.at > started && d.at < ended);
    expect(deletedDuring.length).toBeGreaterThanOrEqual(5);

    const expected = await survivingQualifyingToolCalls(db);
    expect(expected.length).toBeLessThan(Math.ceil(MESSAGES / SUBAGENT_EVERY)); // deleted sessions took theirs
    expect(await backfilledToolCalls(db)).toEqual(expected);

    const keys = await metaKeys(db);
    expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    const backfillMs = ended - started;
    console.log(
      `[${dialect}] backfill beside a busy host: ${backfillMs} ms in ${chunkEnds.length - 1} chunks (longest ${Math.max(...chunkEnds.slice(1).map((end, i) => end - chunkEnds[i]))} ms); host: ${JSON.stringify({ ...host, deleted: host.deleted.length })}`,
    );
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      // SQLite: one writer at a time, so the host's wait is the backfill's lock hold: about
      // one chunk (docs/migrations.md), never the whole backfill. Judged in chunks, not as a
      // share of the backfill: a loaded machine stretches both alike (a share bound of 1/4
      // failed in CI at 880 ms of 2.6 s, the suite beside two other runs). A writer arriving
      // during a chunk waits its rest; SQLite's busy handler sleeps up to 100 ms between tries
      // and may miss the 50 ms pause, so it may wait out the next chunk too: at most two
      // chunks and one sleep. The single statement (one chunk: the whole backfill) made it
      // wait ~80% of the backfill (1.48 s of 1.89 s), a lock kept across chunks would make it
      // wait the whole backfill: the host's own wait is bounded by a third of the backfill,
      // which catches both (34 runs of this test on 2026-12-06: at most 0.17 of it). That
      // third once bounded the longest interval between progress reports instead; since a
      // chunk's rows are computed ahead, outside the lock, for up to eight targets, an
      // interval holds that computation too, and reached 0.36 of the backfill in a full run
      // while the host waited 0.13 of it.
      const chunks = chunkEnds.slice(1).map((end, i) => end - chunkEnds[i]);
      const longestChunkMs = Math.max(...chunks);
      expect(chunks.length).toBeGreaterThanOrEqual(4);
      expect(host.maxWaitMs).toBeLessThan(backfillMs / 3);
      expect(host.maxWaitMs).toBeLessThan(2 * longestChunkMs + 100);
    }
  }, 300_000);
});
