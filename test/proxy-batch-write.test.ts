// The proxy writes a batch in a few statements (src/proxy/batch-jobs.ts): the message rows in
// rounds, every subagent row through the store's recordFrames. Nothing in TypeScript merges
// updates: the upserts decide what a row keeps. Proof by replay, on both dialects: seeded
// sequences of the jobs a recognizer emits (each update carrying everything learned so far,
// statuses advancing, a terminal status repeated or followed by a late one, turns and tasks
// that change, several updates of one call in a batch) are written to two sessions from the
// same starting rows (a random prefix written job by job): one session one job per write, the
// other the rest as ONE batch. Every column of every subagent row and message row (apart from
// the ids derived from the session) and the counts written must agree. No column is named
// here, so a column added to either table is compared too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WriteJob } from '../src/proxy/acp-identity.js';
import { openPostgresProxyDatabase } from '../src/proxy/postgres-proxy-database.js';
import type { ProxyDatabase } from '../src/proxy/proxy-database.js';
import { openSqliteProxyDatabase } from '../src/proxy/sqlite-proxy-database.js';
import type { SubagentContextRow } from '../src/types.js';
import { byDialect } from './helpers/by-dialect.js';
import { prng } from './helpers/prng.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SEQUENCES = 60;
const AT = 1_785_000_000_123_456_789n;
const EXECUTION = '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11';

type SubagentJob = Extract<WriteJob, { kind: 'subagent' }>;

/** What the proxy's identity layer emits for a few calls, interleaved; `sessionId` filled in later. */
function sequence(seed: number): Omit<SubagentJob, 'sessionId'>[] {
  const rng = prng(seed);
  const jobs: Omit<SubagentJob, 'sessionId'>[] = [];
  const calls = Array.from({ length: 1 + rng.int(4) }, (_, i) => ({
    toolCallId: `call_${i}`,
    payload: {} as Record<string, unknown>,
    status: 'pending' as string | null,
    lastStatus: 'pending' as string | null,
    turn: rng.pick([null, 'turn-1']),
  }));
  const count = 4 + rng.int(24);
  for (let i = 0; i < count; i++) {
    const call = rng.pick(calls);
    const field = rng.pick([
      'description',
      'subagent_type',
      'model',
      'agent_id',
      'child_session_id',
      'status',
      'total_tokens',
      'tool_use_count',
      'duration_ms',
      'is_async',
      'none',
    ]);
    if (field === 'total_tokens' || field === 'duration_ms' || field === 'tool_use_count') call.payload[field] = rng.pick([0, 5, 120, -1, 1.5, 9_000]);
    else if (field === 'is_async') call.payload.is_async = rng.chance(0.7);
    else if (field !== 'none') call.payload[field] = rng.pick(['a', 'b', '']);
    if (rng.chance(0.1)) delete call.payload[rng.pick(Object.keys(call.payload).concat('model'))]; // a field the next update lacks
    call.status = rng.pick([call.status, call.status, 'in_progress', 'completed', 'failed', null]);
    call.lastStatus = call.status ?? call.lastStatus;
    jobs.push({
      kind: 'subagent',
      taskId: rng.chance(0.05) ? 'task-2' : 'task-1',
      turnId: rng.chance(0.1) ? rng.pick([null, 'turn-2']) : call.turn,
      toolCallId: call.toolCallId,
      parentToolCallId: rng.chance(0.2) ? 'toolu_parent' : null,
      toolStatus: call.status,
      messageStatus: call.lastStatus,
      payload: { ...call.payload },
    });
  }
  return jobs;
}

describeBothDialects('proxy: a batch written at once leaves the rows its jobs written one by one leave', (dialect) => {
  let db: TestDb;
  let proxy: ProxyDatabase;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    const options = { executionId: EXECUTION, logger: { warn: () => {} }, clock: () => AT };
    proxy = byDialect(dialect, {
      sqlite: () => openSqliteProxyDatabase(db.location, options),
      postgres: () => openPostgresProxyDatabase(db.location, options),
    })();
    expect((await proxy.prepare()).ok).toBe(true);
  });
  afterAll(async () => {
    await proxy.close();
    await db.close();
  });

  const subagentRows = async (session: string) =>
    (await db.store().listBySession(session)).map(({ id: _id, task_session_id: _s, ...rest }: SubagentContextRow) => rest);
  // Every column, whatever the table has; the id and the session are the ones that differ.
  const messageRows = async (session: string) =>
    (await db.query<Record<string, unknown>>('SELECT * FROM task_session_messages WHERE task_session_id = $1', [session]))
      .map(({ id: _id, task_session_id: _s, ...rest }) => rest)
      .sort((x, y) => String(x.metadata).localeCompare(String(y.metadata)));

  it(`${SEQUENCES} seeded sequences: the same subagent rows, message rows and counts either way`, async () => {
    let repeatedCalls = 0;
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const [oneByOne, batched] = [`seq-${seed}-a`, `seq-${seed}-b`];
      const jobs = sequence(seed);
      const of = (sessionId: string): WriteJob[] => jobs.map((job) => ({ ...job, sessionId }));
      const [a, b] = [of(oneByOne), of(batched)];
      const prefix = prng(seed ^ 0x77).int(Math.ceil(jobs.length / 2)); // the rows a batch finds: absent, open or settled
      for (let i = 0; i < prefix; i++) {
        await proxy.write([a[i]], AT);
        await proxy.write([b[i]], AT);
      }
      let written = 0;
      for (const job of a.slice(prefix)) written += (await proxy.write([job], AT)).written;
      const batch = await proxy.write(b.slice(prefix), AT);
      const context = `seed ${seed} (prefix ${prefix})`;
      expect(batch.failed, context).toBe(0);
      expect(batch.written, context).toBe(written);
      expect(await subagentRows(batched), context).toEqual(await subagentRows(oneByOne));
      expect(await messageRows(batched), context).toEqual(await messageRows(oneByOne));
      const calls = b.slice(prefix).map((job) => (job.kind === 'subagent' ? job.toolCallId : ''));
      repeatedCalls += calls.length - new Set(calls).size;
    }
    // Not vacuous: batches held several updates of one call (message rounds, store rounds).
    expect(repeatedCalls).toBeGreaterThan(SEQUENCES);
  });
});
