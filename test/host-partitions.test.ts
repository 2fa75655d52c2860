// A host task_session_messages range-partitioned on created_at (issue 11, item 5; DESIGN §8
// "Schemas and partitions"): primary key (id, created_at), monthly partitions plus a default,
// otherwise exactly the host's table (schema/host/postgres/001_host_tables.sql, rewritten here).
// The backfill reads across every partition (in one chunk, and in chunks of two sessions with
// task_sessions hash-partitioned too: issue 32 item 6), the health check finds a real shortfall, and
// EXPLAIN shows the health window pruning partitions: only the months at or after
// capture_since (and the default, which may hold any date) are scanned, under custom and
// generic plans.
// PostgreSQL only: SQLite has no table partitioning (its closest relative, one attached
// database per range, is not a table the host's unqualified statements read), so the setting
// does not exist there (the "both dialects where the setting exists" rule).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as queries from '../generated/postgres/index.js';
import { ACTIVATION_KEYS, type BackfillProgress } from '../src/index.js';
import { parseInstant } from '../src/instant.js';
import { postgresWindow } from '../src/postgres/health.js';
import { steppingClock } from './helpers/clock.js';
import { explainGenerated, type PlanNode } from './helpers/postgres-explain.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';

const ns = (iso: string) => parseInstant(iso)!;
const MONTHS = Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);
const partitionOf = (month: string) => `task_session_messages_${month.replace('-', '_')}`;
const DEFAULT_PARTITION = 'task_session_messages_default';
const ACTIVATION = ns('2026-06-15T12:00:00Z'); // the store's clock: capture_since lands here

/**
 * The host's DDL with task_session_messages partitioned: the same columns, the id primary key
 * widened to (id, created_at) as PostgreSQL requires of a partitioned table's unique keys,
 * monthly partitions for 2026 and a default; the host's two indexes become partitioned ones.
 */
function partitionedHostDdl(): string {
  const host = readFileSync('schema/host/postgres/001_host_tables.sql', 'utf8');
  const table = /CREATE TABLE IF NOT EXISTS task_session_messages \(([\s\S]*?)\n\);/.exec(host);
  if (!table) throw new Error('schema/host/postgres/001_host_tables.sql: no task_session_messages table');
  const columns = table[1].replace(/\bid\s+TEXT PRIMARY KEY,/, 'id              TEXT NOT NULL,');
  if (columns === table[1]) throw new Error('task_session_messages.id is no longer TEXT PRIMARY KEY');
  const partitioned = `CREATE TABLE task_session_messages (${columns},\n  PRIMARY KEY (id, created_at)\n) PARTITION BY RANGE (created_at);\n${MONTHS.map(
    (m, i) => `CREATE TABLE ${partitionOf(m)} PARTITION OF task_session_messages FOR VALUES FROM ('${m}-01') TO ('${MONTHS[i + 1] ?? '2027-01'}-01');`,
  ).join('\n')}\nCREATE TABLE ${DEFAULT_PARTITION} PARTITION OF task_session_messages DEFAULT;`;
  return host.replace(table[0], partitioned);
}

/** The message partitions a plan reads. */
const scannedPartitions = (nodes: PlanNode[]) =>
  [...new Set(nodes.map((n) => n['Relation Name']).filter((r): r is string => r !== undefined && r.startsWith('task_session_messages_')))].sort();

describe('a range-partitioned host task_session_messages [postgres]', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb('postgres');
    // openTestDb applied the plain host tables; the host here ships the partitioned ones.
    await db.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions;');
    await db.exec(partitionedHostDdl());
    const [kind] = await db.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE relname = 'task_session_messages'");
    expect(kind.relkind).toBe('p');
    await insertSession(db, 's1', 'task-1');
    // History in five months and in the default partition (a date beyond the monthly ranges).
    const history = [
      '2026-01-10T08:00:00Z',
      '2026-02-20T09:30:00Z',
      '2026-03-31T23:59:59.999999Z',
      '2026-04-01T00:00:00Z',
      '2026-05-05T05:05:05Z',
      '2025-12-31T23:00:00Z',
    ];
    for (const [i, at] of history.entries()) {
      await insertMessage(db, {
        id: `m-history-${i}`,
        sessionId: 's1',
        taskId: 'task-1',
        turnId: 'turn-1',
        metadata: subagentMetadata({ toolCallId: `tc-history-${i}`, toolStatus: 'completed', subagent: { total_tokens: 100 + i } }),
        createdAt: hostTimestamp(db, ns(at)),
      });
    }
  });
  afterAll(async () => db.close());

  it('the backfill reads across every partition and activates', async () => {
    const counts = await db.query<{ part: string; n: string }>(
      'SELECT tableoid::regclass::text AS part, count(*) AS n FROM task_session_messages GROUP BY 1 ORDER BY 1',
    );
    expect(counts.map((c) => c.part)).toEqual([
      partitionOf('2026-01'),
      partitionOf('2026-02'),
      partitionOf('2026-03'),
      partitionOf('2026-04'),
      partitionOf('2026-05'),
      DEFAULT_PARTITION,
    ]);

    const report = await db.store({ clock: steppingClock(ACTIVATION, SECOND) }).runMigrations();
    expect(report.ok).toBe(true);
    const rows = await db.store().listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.total_tokens, r.source]).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => [`tc-history-${i}`, 100 + i, 'backfill']).sort(),
    );
    const keys = Object.fromEntries((await db.query<{ key: string; value: string }>('SELECT key, value FROM kandev_meta')).map((k) => [k.key, k.value]));
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe('2026-05-05T05:05:05.000000000Z'); // the newest, found across partitions
    expect(keys[ACTIVATION_KEYS.captureSince]).toMatch(/^2026-06-15T12:00:0\d\.000000000Z$/); // a few clock steps after ACTIVATION
  });

  it('health finds a real shortfall in a later partition, and clears when the row is written', async () => {
    const clock = steppingClock(ns('2026-07-02T10:00:00Z'), SECOND);
    const store = db.store({ clock });
    // A recorded subagent in July, and one in August whose row was never written.
    await insertMessage(db, {
      id: 'm-july',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: 'tc-july', subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'tc-july', payload: {} })).toBe('persisted');
    await insertMessage(db, {
      id: 'm-august',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: 'tc-august', subagent: {} }),
      createdAt: hostTimestamp(db, ns('2026-08-20T00:00:00Z')),
    });
    // … and one in the default partition (2027), also missed.
    await insertMessage(db, {
      id: 'm-2027',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: 'tc-2027', subagent: {} }),
      createdAt: hostTimestamp(db, ns('2027-03-01T00:00:00Z')),
    });

    expect(await store.checkHealth()).toMatchObject({ shortfall: 2, excess: 0, verdict: 'shortfall' });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'tc-august', payload: {} })).toBe('persisted');
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'tc-2027', payload: {} })).toBe('persisted');
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, excess: 0, verdict: 'healthy' });
  });

  for (const analyzed of [false, true]) {
    it(`EXPLAIN: the health window scans only the partitions at or after capture_since (${analyzed ? 'after ANALYZE' : 'no statistics'}; custom and generic plans)`, async () => {
      if (analyzed) await db.exec('ANALYZE');
      const window = postgresWindow(ACTIVATION);
      const expected = [...MONTHS.filter((m) => m >= '2026-06').map(partitionOf), DEFAULT_PARTITION].sort();
      for (const name of ['countShortfallSinceCapture', 'countExcessSinceCapture'] as const) {
        for (const generic of [false, true]) {
          const nodes = await explainGenerated(db.pool!, queries[name], window, generic);
          const label = `${name} (${generic ? 'generic' : 'custom'} plan)`;
          expect(scannedPartitions(nodes), label).toEqual(expected);
          // The generic plan knows the window only at execution: the pruning happens at start-up.
          if (generic)
            expect(
              nodes.some((n) => (n['Subplans Removed'] ?? 0) >= 5),
              label,
            ).toBe(true);
        }
      }
    });
  }
});

/**
 * Issue 32 item 6: the chunked backfill on partitioned host tables, with chunks of two
 * sessions so several run. task_session_messages is range-partitioned as above; in the second
 * case task_sessions is hash-partitioned on its key too (each chunk's FOR KEY SHARE and
 * key-order walk then run across its partitions). The rows and keys equal the single
 * statement's (test/helpers/single-statement-backfill.ts) on the same store, including a tool
 * call whose competing messages sit in different partitions (the winner in the later one).
 */
function hashPartitionedSessions(ddl: string): string {
  const table = /CREATE TABLE IF NOT EXISTS task_sessions \(([\s\S]*?)\n\);/.exec(ddl);
  if (!table) throw new Error('no task_sessions table in the host DDL');
  const parts = [0, 1, 2, 3].map((r) => `CREATE TABLE task_sessions_h${r} PARTITION OF task_sessions FOR VALUES WITH (MODULUS 4, REMAINDER ${r});`);
  return ddl.replace(table[0], `CREATE TABLE task_sessions (${table[1]}\n) PARTITION BY HASH (id);\n${parts.join('\n')}`);
}

describe('the chunked backfill over partitioned host tables [postgres]', () => {
  for (const [sessionsPartitioned, walk] of [
    [false, 'sessions'],
    [true, 'sessions'],
    [true, 'windows'],
  ] as const) {
    const chunked = walk === 'windows' ? 'windows of 30 days' : 'chunks of 2 sessions';
    it(`${chunked} write the single statement's rows and keys (messages by month${sessionsPartitioned ? ', sessions by hash' : ''})`, async () => {
      const db = await openTestDb('postgres');
      try {
        await db.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions;');
        await db.exec(sessionsPartitioned ? hashPartitionedSessions(partitionedHostDdl()) : partitionedHostDdl());
        if (sessionsPartitioned) {
          const [kind] = await db.query<{ relkind: string }>("SELECT relkind FROM pg_class WHERE relname = 'task_sessions'");
          expect(kind.relkind).toBe('p');
        }
        const months = ['2025-12-31T23:00:00Z', '2026-01-10T08:00:00Z', '2026-03-31T23:59:59.999999Z', '2026-04-01T00:00:00Z', '2026-05-05T05:05:05Z'];
        for (let s = 0; s < 9; s++) {
          const session = `s${s}`;
          await insertSession(db, session, `task-${s}`);
          for (const [i, at] of months.entries()) {
            if ((s + i) % 3 === 0) continue; // sessions differ in which partitions hold their messages
            await insertMessage(db, {
              id: `${session}-m${i}`,
              sessionId: session,
              taskId: `task-${s}`,
              metadata: subagentMetadata({ toolCallId: `tc-${s}-${i}`, toolStatus: 'completed', subagent: { total_tokens: 10 * s + i } }),
              createdAt: hostTimestamp(db, ns(at)),
            });
          }
          // One tool call reported twice, in January and in May: the May message wins.
          for (const [k, at] of [months[1], months[4]].entries()) {
            await insertMessage(db, {
              id: `${session}-twice-${k}`,
              sessionId: session,
              taskId: `task-${s}`,
              metadata: subagentMetadata({ toolCallId: `tc-${s}-twice`, toolStatus: 'completed', subagent: { total_tokens: 1000 + k } }),
              createdAt: hostTimestamp(db, ns(at)),
            });
          }
        }
        const store = db.store({ clock: steppingClock(ACTIVATION, SECOND) });
        expect((await store.runMigrations({ backfill: 'defer' })).ok).toBe(true);
        const single = await singleStatementRows(db);
        expect(single.rows.length).toBeGreaterThan(9);

        const chunks: BackfillProgress[] = [];
        const report = await store.runMigrations({
          backfillChunk: { maxSessions: 2, pauseMs: 0, walk, maxWindowMs: 30 * 24 * 3600 * 1000 },
          onBackfillProgress: (p) => chunks.push(p),
        });
        expect(report.ok, JSON.stringify(report.steps)).toBe(true);
        if (walk === 'sessions')
          expect(chunks.map((p) => p.sessions)).toEqual([2, 4, 6, 8, 9]); // five chunks, the last one short
        else {
          // Read through the partitioned index on created_at, in windows of at most 30 days over the
          // five months: several windows, every message read once.
          expect(chunks.every((p) => p.phase === 'windows')).toBe(true);
          expect(chunks.length).toBeGreaterThan(2);
          const messages = await db.query('SELECT id FROM task_session_messages');
          expect(chunks.map((p) => p.messagesScanned).at(-1)).toBe(messages.length);
        }
        expect(await backfilledRows(db)).toEqual(single.rows);
        const twice = await db.query<{ total_tokens: string }>("SELECT total_tokens FROM task_session_subagents WHERE tool_call_id = 'tc-4-twice'");
        expect(twice.map((r) => Number(r.total_tokens))).toEqual([1001]);
        const keys = Object.fromEntries((await db.query<{ key: string; value: string }>('SELECT key, value FROM kandev_meta')).map((k) => [k.key, k.value]));
        expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
        expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
      } finally {
        await db.close();
      }
    });
  }
});
