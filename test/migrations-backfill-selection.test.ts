// Which messages the backfill takes (AC-21a…AC-22): a message missing its session, task or
// tool_call_id is skipped, duplicates yield one winner per (session, tool_call_id), live rows
// stay untouched, and no message, however malformed, aborts the statement.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { insertWithoutForeignKeys, metaKeys } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilled, backfillHelpers } from './helpers/backfill-helpers.js';

describeBothDialects('runMigrations: backfill', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());
  const { ts, message, migrate, rows } = backfillHelpers(dialect, () => db);

  it('AC-21a: a message missing its session, task or JSON tool_call_id is skipped and the statement does not fail', async () => {
    await insertSession(db, ''); // a session row whose id is empty, so only the identity filter can skip it
    const meta = (toolCallId: unknown) => JSON.stringify({ tool_call_id: toolCallId, normalized: { kind: 'subagent_task', subagent_task: {} } });
    await message({ id: 'no-session', sessionId: '', taskId: 'task-x', createdAt: ts('2026-08-01 10:00:00'), metadata: meta('t1') });
    await message({ id: 'empty-task', taskId: '', createdAt: ts('2026-08-01 10:00:01'), metadata: meta('t2') });
    await message({ id: 'null-task', taskId: null, createdAt: ts('2026-08-01 10:00:02'), metadata: meta('t3') });
    await message({ id: 'empty-call', createdAt: ts('2026-08-01 10:00:03'), metadata: meta('') });
    await message({ id: 'numeric-call', createdAt: ts('2026-08-01 10:00:04'), metadata: meta(123) });
    await message({
      id: 'no-call',
      createdAt: ts('2026-08-01 10:00:05'),
      metadata: JSON.stringify({ normalized: { kind: 'subagent_task', subagent_task: {} } }),
    });
    await message({ id: 'kept', createdAt: ts('2026-08-01 10:00:06'), metadata: meta('t7') });
    await migrate();
    expect(await db.query(`SELECT tool_call_id FROM task_session_subagents`)).toEqual([{ tool_call_id: 't7' }]);
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('2026-08-01T10:00:06.000000000Z');
  });

  it('AC-21b: duplicates yield one row, from the newest created_at as an instant, then the greatest id in byte order', async () => {
    const sub = (toolCallId: string, model: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { model } });
    // Raw text and instant order disagree on SQLite: 12:00+02:00 (10:00Z) sorts after 10:30+00:00 as text.
    await message({ id: 'z-old', createdAt: ts('2026-08-01 10:00:00', '2026-08-01 12:00:00+02:00'), metadata: sub('toolu_dup', 'older') });
    await message({ id: 'a-new', createdAt: ts('2026-08-01 10:30:00', '2026-08-01 10:30:00+00:00'), metadata: sub('toolu_dup', 'newer') });
    // Equal instants: the greatest id wins, in byte order ('msg-a' > 'msg-B'), whatever the
    // host's collation: on PostgreSQL the ids get an ICU collation, under which 'msg-B' is greater.
    if (byDialect(dialect, { sqlite: false, postgres: true })) await db.exec(`ALTER TABLE task_session_messages ALTER COLUMN id TYPE text COLLATE "und-x-icu"`);
    // (On SQLite msg-B's text also sorts later — 'T' > ' ' — so only instant equality reaches the id.)
    await message({ id: 'msg-B', createdAt: ts('2026-08-01 09:00:00', '2026-08-01T09:00:00.000Z'), metadata: sub('toolu_tie', 'upper') });
    await message({ id: 'msg-a', createdAt: ts('2026-08-01 09:00:00'), metadata: sub('toolu_tie', 'lower') });
    await migrate();
    const got = await rows();
    expect(got.map((r) => [r.tool_call_id, r.model, r.observed_at])).toEqual([
      ['toolu_tie', 'lower', '2026-08-01T09:00:00.000000Z'],
      ['toolu_dup', 'newer', '2026-08-01T10:30:00.000000Z'],
    ]);
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('2026-08-01T10:30:00.000000000Z');
  });

  it('AC-22: a live row on the key wins, a live row with a real execution id coexists, and a replay is a no-op', async () => {
    const store = db.store({ clock: steppingClock(1_786_000_000_000_000_000n) });
    // captured live before the backfill ran: no execution id (the shared sentinel) …
    expect(
      await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_live', toolStatus: 'in_progress', payload: { model: 'live-model' } }),
    ).toBe('persisted');
    // … and with a real execution id
    expect(
      await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_exec', executionId: 'exec-1', payload: { model: 'live-exec' } }),
    ).toBe('persisted');
    const sub = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { model: 'from-message', total_tokens: 5 } });
    await message({ id: 'm1', createdAt: ts('2026-08-01 10:00:00'), metadata: sub('toolu_live') });
    await message({ id: 'm2', createdAt: ts('2026-08-01 10:00:01'), metadata: sub('toolu_exec') });
    const liveBefore = await db.query(`SELECT * FROM task_session_subagents ORDER BY id`);
    await migrate();

    const all = await db.query<{ tool_call_id: string; agent_execution_id: string; source: string; model: string }>(
      `SELECT tool_call_id, agent_execution_id, source, model FROM task_session_subagents ORDER BY tool_call_id, agent_execution_id`,
    );
    expect(all).toEqual([
      { tool_call_id: 'toolu_exec', agent_execution_id: 'exec-1', source: 'live', model: 'live-exec' },
      { tool_call_id: 'toolu_exec', agent_execution_id: 'unknown', source: 'backfill', model: 'from-message' },
      { tool_call_id: 'toolu_live', agent_execution_id: 'unknown', source: 'live', model: 'live-model' },
    ]);
    const liveAfter = await db.query(`SELECT * FROM task_session_subagents WHERE source = 'live' ORDER BY id`);
    expect(liveAfter).toEqual(liveBefore); // untouched, every column

    // A replay (both keys cleared, so the guard lets it run) changes nothing.
    const snapshot = await db.query(`SELECT * FROM task_session_subagents ORDER BY id`);
    await db.query(`DELETE FROM kandev_meta WHERE key IN ($1, $2)`, [ACTIVATION_KEYS.captureSince, ACTIVATION_KEYS.backfillThrough]);
    await migrate();
    expect(await db.query(`SELECT * FROM task_session_subagents ORDER BY id`)).toEqual(snapshot);
  });

  it('malformed metadata and values never abort the statement: such a message is skipped, such a value is NULL', async () => {
    const at = (s: number) => ts(`2026-08-01 10:00:${String(s).padStart(2, '0')}`);
    const bad: [string, string | null][] = [
      ['null-meta', null],
      ['empty-meta', ''],
      ['json-null', 'null'],
      ['broken', '{broken subagent_task'],
      ['array', '["subagent_task"]'],
      ['string', '"subagent_task"'],
      ['number', '42'],
      ['wrong-kind', JSON.stringify({ tool_call_id: 'k', normalized: { kind: 'tool_call', subagent_task: {} }, note: 'subagent_task' })],
      ['kind-not-string', JSON.stringify({ tool_call_id: 'k2', normalized: { kind: ['subagent_task'] } })],
    ];
    for (const [i, [id, metadata]] of bad.entries()) await message({ id, createdAt: at(i), metadata });
    // Qualifying, with every field of the wrong type or out of range.
    await message({
      id: 'wrong-types',
      createdAt: at(20),
      metadata: JSON.stringify({
        tool_call_id: 'toolu_weird',
        status: 42,
        parent_tool_call_id: { x: 1 },
        normalized: {
          kind: 'subagent_task',
          subagent_task: {
            status: ['done'],
            model: 5,
            description: true,
            subagent_type: null,
            agent_id: 1.5,
            child_session_id: {},
            total_tokens: '100',
            tool_use_count: 1.5,
            duration_ms: true,
            is_async: 'true',
          },
        },
      }),
    });
    await message({
      id: 'huge',
      createdAt: at(21),
      metadata:
        '{"tool_call_id":"toolu_huge","normalized":{"kind":"subagent_task","subagent_task":{"total_tokens":1e30,"duration_ms":9223372036854775808,"tool_use_count":9223372036854775807}}}',
    });
    await message({
      id: 'task-string',
      createdAt: at(22),
      metadata: JSON.stringify({ tool_call_id: 'toolu_str', normalized: { kind: 'subagent_task', subagent_task: 'not an object' } }),
    });
    if (byDialect(dialect, { sqlite: true, postgres: false }))
      await message({ id: 'bad-time', createdAt: 'yesterday', metadata: subagentMetadata({ toolCallId: 'toolu_when', subagent: {} }) });
    // A message whose session row is gone (only possible where foreign keys were off): skipped.
    await insertWithoutForeignKeys(
      db,
      `INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES ('orphan', 'gone', 'task-gone', $1, $2)`,
      [subagentMetadata({ toolCallId: 'toolu_orphan', subagent: {} }), at(59)],
    );

    await migrate();
    const got = await rows();
    expect(got.map((r) => r.tool_call_id)).toEqual(['toolu_weird', 'toolu_huge', 'toolu_str']);
    expect(got[0]).toEqual(backfilled({ tool_call_id: 'toolu_weird', observed_at: '2026-08-01T10:00:20.000000Z', updated_at: '2026-08-01T10:00:20.000000Z' }));
    expect(got[1]).toMatchObject({ total_tokens: null, duration_ms: null, tool_use_count: 9223372036854775807n });
    expect(got[2]).toEqual(backfilled({ tool_call_id: 'toolu_str', observed_at: '2026-08-01T10:00:22.000000Z', updated_at: '2026-08-01T10:00:22.000000Z' }));
    // read_backfill_through applies the same predicate: the newest message that produced a row.
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('2026-08-01T10:00:22.000000000Z');
  });
});
