// metadata stored as a BLOB (a review, 2026-12): a Go []byte argument writes the host's JSON
// text as a BLOB, and GLOB on a BLOB is 0, so the text prefilter skipped every such message: the
// store activated with no rows and backfill_through '', and health was blind to a missed write.
// A BLOB holding JSON text must read exactly as the same text: the same backfilled rows, the
// same mark, the same health. A JSONB BLOB (SQLite's jsonb()) is not supported: it is skipped,
// never an error (docs/host-tables.md). SQLite alone: a PostgreSQL host's metadata is text.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { HOST_INDEX_NAME as INDEX } from '../src/host-index/host-index.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const CLOCK = 1_790_000_000_000_000_000n; // 2026-09-21, after the history below
type Encode = (json: string, db: TestDb) => unknown;
const asText: Encode = (json) => json;
const asBlob: Encode = (json) => Buffer.from(json, 'utf8');
const asJsonb: Encode = (json, db) => (db.sqlite!.prepare('SELECT jsonb(?) AS b').get(json) as { b: Buffer }).b;

const opened: TestDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

async function message(db: TestDb, encode: Encode, id: string, sessionId: string, toolCallId: string, description: string, at: string): Promise<void> {
  const json = subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { description, total_tokens: 10 } });
  db.sqlite!.prepare(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
     VALUES (?, ?, ?, 'agent', '', 'tool_call', ?, ?)`,
  ).run(id, sessionId, `task-${sessionId}`, encode(json, db) as never, at);
}

/** History (two competing messages, another session), a migration, then a missed and a recorded live message; what the store holds and says. */
async function scenario(encode: Encode) {
  const db = await openTestDb('sqlite');
  opened.push(db);
  for (const s of ['s1', 's2']) await insertSession(db, s);
  await message(db, encode, 'm1', 's1', 'toolu_1', 'v0', '2026-08-01 10:00:00+00:00');
  await message(db, encode, 'm2', 's1', 'toolu_1', 'v1', '2026-08-01 10:01:00+00:00');
  await message(db, encode, 'm3', 's2', 'toolu_2', 'other', '2026-08-02 09:30:00+02:00');
  const store = db.store({ clock: steppingClock(CLOCK) });
  const report = await store.runMigrations({ backfillChunk: { pauseMs: 0 } });
  const rows = (await backfilledRows(db)).map((r) => [r.task_session_id, r.tool_call_id, r.description, r.observed_at, r.source]);
  const keys = await metaKeys(db);
  // After activation: the host writes two messages; the live path records only one of them.
  await message(db, encode, 'm-live', 's1', 'toolu_live', 'live', '2026-09-22 10:00:00+00:00');
  await message(db, encode, 'm-missed', 's2', 'toolu_missed', 'missed', '2026-09-22 10:00:01+00:00');
  const live = await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_live', toolStatus: 'completed', payload: { total_tokens: 5 } });
  const health = await store.checkHealth();
  return {
    ok: report.ok,
    rows,
    through: keys[ACTIVATION_KEYS.backfillThrough],
    live,
    health: { verdict: health.verdict, shortfall: health.shortfall, excess: health.excess },
  };
}

describe('metadata stored as a BLOB [sqlite]', () => {
  it('a BLOB holding the JSON text backfills, marks and checks health exactly as the text does', async () => {
    const text = await scenario(asText);
    expect(text.rows.map((r) => r.slice(0, 3))).toEqual([
      ['s1', 'toolu_1', 'v1'],
      ['s2', 'toolu_2', 'other'],
    ]);
    expect(text.through).toBe('2026-08-02T07:30:00.000000000Z');
    expect(text.health).toEqual({ verdict: 'shortfall', shortfall: 1, excess: 0 });
    expect(await scenario(asBlob)).toEqual(text);
  });

  it('a JSONB BLOB (jsonb()) is skipped, never an error: the migration succeeds and health reads no such message', async () => {
    const out = await scenario(asJsonb);
    expect(out.ok).toBe(true);
    expect(out.rows).toEqual([]);
    expect(out.through).toBe('');
    expect(out.live).toBe('persisted');
    // Health reads neither message: the live row counts as excess, the missed one is invisible.
    expect(out.health).toEqual({ verdict: 'healthy', shortfall: 0, excess: 1 });
  });

  it('the optional host index holds BLOB metadata; one of the earlier (text-only) definition is rebuilt, not refused', async () => {
    const db = await openTestDb('sqlite');
    opened.push(db);
    await insertSession(db, 's1');
    await message(db, asBlob, 'm1', 's1', 'toolu_1', 'v0', '2026-08-01 10:00:00+00:00');
    const entries = () => (db.sqlite!.prepare(`SELECT count(*) AS n FROM task_session_messages INDEXED BY ${INDEX}`).get() as { n: number }).n;
    db.sqlite!.exec(`CREATE INDEX ${INDEX} ON task_session_messages (created_at)\n  WHERE ((metadata GLOB '*_task*') > 0)`);
    expect(await db.store().ensureHostIndex()).toMatchObject({ index: INDEX, outcome: 'rebuilt' });
    expect(entries()).toBe(1);
    expect(await db.store().ensureHostIndex()).toMatchObject({ outcome: 'present' });
  });
});
