// Identity and value forms (issue 11, item 6; DESIGN §8), on both dialects, as regression tests
// of facts reported against the previous code: a tool_call_id that is a JSON number was skipped
// by the backfill but counted as a shortfall; NUL and lone surrogates make an id unrecordable
// everywhere while U+FFFD, U+FFFE and U+FFFF do not; a metric written `1e2` was 100 on
// PostgreSQL and NULL on SQLite. The length bounds are test/identity-bounds.test.ts's.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { CLOCK_START, identityHistory, T0 } from './helpers/identity-history.js';

describeBothDialects('identity bounds', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect); // host tables only: runMigrations installs the package
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const { history } = identityHistory(() => db);

  it('a tool_call_id that is a JSON number is neither backfilled nor counted as a shortfall', async () => {
    await history('m-numeric-history', 1n, { toolCallId: 12345 });
    const clock = steppingClock(CLOCK_START, SECOND);
    const store = db.store({ clock });
    expect((await store.runMigrations()).ok).toBe(true);
    expect(await store.listBySession('s1')).toEqual([]);

    for (const [i, toolCallId] of [777, 0, 1.5, true, ['x'], { id: 'x' }].entries()) {
      await insertMessage(db, {
        id: `m-live-${i}`,
        sessionId: 's1',
        taskId: 'task-1',
        metadata: JSON.stringify({ tool_call_id: toolCallId, normalized: { kind: 'subagent_task', subagent_task: {} } }),
        createdAt: hostTimestamp(db, clock()),
      });
      expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: toolCallId as never, payload: {} })).toBe('skipped_no_identity');
    }
    // A string '777' is a different, recordable id: it is expected, and found once written.
    await insertMessage(db, {
      id: 'm-string',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: '777', subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.checkHealth()).toMatchObject({ shortfall: 1 });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: '777', payload: {} })).toBe('persisted');
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });

  it('NUL and lone surrogates make an id unrecordable everywhere; U+FFFD, U+FFFE and U+FFFF do not', async () => {
    // The metadata text as a JSON writer escapes it ('\\u0000', a lone '\\ud800'): PostgreSQL's
    // jsonb rejects such a document as a whole, SQLite's JSON functions decode it into the id.
    const unrecordable = ['a\\u0000b', 'x\\ud800', '\\udfffy', '\\ud800\\ud800'];
    const recordable = ['\\ufffd', 'z\\ufffe', '\\uffff', 'é\\ud83d\\ude00'];
    const all = [...unrecordable, ...recordable];
    for (const [i, escaped] of all.entries()) {
      await insertMessage(db, {
        id: `m-h-${i}`,
        sessionId: 's1',
        taskId: 'task-1',
        metadata: `{"tool_call_id":"h-${escaped}","normalized":{"kind":"subagent_task","subagent_task":{}}}`,
        createdAt: hostTimestamp(db, T0 + BigInt(i) * SECOND),
      });
    }
    const clock = steppingClock(CLOCK_START, SECOND);
    const store = db.store({ clock });
    expect((await store.runMigrations()).ok).toBe(true);
    const decode = (escaped: string) => JSON.parse(`"${escaped}"`) as string;
    expect((await store.listBySession('s1')).map((r) => r.tool_call_id).sort()).toEqual(recordable.map((e) => `h-${decode(e)}`).sort());

    for (const [i, escaped] of all.entries()) {
      const toolCallId = `l-${decode(escaped)}`;
      await insertMessage(db, {
        id: `m-l-${i}`,
        sessionId: 's1',
        taskId: 'task-1',
        metadata: `{"tool_call_id":"l-${escaped}","normalized":{"kind":"subagent_task","subagent_task":{}}}`,
        createdAt: hostTimestamp(db, clock()),
      });
      expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId, payload: {} })).toBe(
        i < unrecordable.length ? 'skipped_no_identity' : 'persisted',
      );
    }
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });

  it('metrics: a JSON number whose value is an integer within int64 is that integer however it is written, the same on both dialects', async () => {
    // [literal, tool_use_count as stored (AC-8 keeps 0), total_tokens as stored (AC-7a: 0 is NULL)]
    const cases: [string, string | null, string | null][] = [
      ['100', '100', '100'],
      ['1e2', '100', '100'],
      ['1E+2', '100', '100'],
      ['100.0', '100', '100'],
      ['1.5e1', '15', '15'],
      ['150e-1', '15', '15'],
      ['10000e-2', '100', '100'],
      ['0.0', '0', null],
      ['-0.0', '0', null],
      ['-0', '0', null],
      ['0e7', '0', null],
      ['1.5', null, null],
      ['1e-2', null, null],
      ['0.99999999999999999999', null, null], // 1.0 as a double; not an integer
      ['9007199254740993.0', '9007199254740993', '9007199254740993'], // beyond 2^53: exact, never rounded
      ['9.223372036854775807e18', '9223372036854775807', '9223372036854775807'],
      ['9.223372036854775808e18', null, null], // 2^63: beyond int64
      ['1e19', null, null],
      ['-1e2', null, null], // AC-9: negative
      ['1e30', null, null],
    ];
    for (const [i, [literal]] of cases.entries()) {
      await insertMessage(db, {
        id: `m-${i}`,
        sessionId: 's1',
        taskId: 'task-1',
        metadata: `{"tool_call_id":"tc-${i}","normalized":{"kind":"subagent_task","subagent_task":{"tool_use_count":${literal},"total_tokens":${literal},"duration_ms":${literal}}}}`,
        createdAt: hostTimestamp(db, T0 + BigInt(i) * SECOND),
      });
    }
    expect((await db.store({ clock: steppingClock(CLOCK_START) }).runMigrations()).ok).toBe(true);
    const rows = await db.query<{ tool_call_id: string; tool_use_count: unknown; total_tokens: unknown; duration_ms: unknown }>(
      `SELECT tool_call_id, CAST(tool_use_count AS TEXT) AS tool_use_count, CAST(total_tokens AS TEXT) AS total_tokens, CAST(duration_ms AS TEXT) AS duration_ms
         FROM task_session_subagents`,
    );
    const got = Object.fromEntries(rows.map((r) => [r.tool_call_id, [r.tool_use_count, r.total_tokens, r.duration_ms]]));
    expect(got).toEqual(Object.fromEntries(cases.map(([, count, tokens], i) => [`tc-${i}`, [count, tokens, tokens]])));
  });
});
