// Identity bounds (issue 11, item 6; DESIGN §8): one definition of a recordable identity
// (src/identity.ts) shared by the live writer, the backfill and the health shortfall. Each case
// below is a fact reported against the previous code, as a regression test on both dialects:
// - a history message with a 3 KB incompressible tool_call_id (or task id, or turn id) made the
//   PostgreSQL backfill fail with 54000 on every boot, so the store never activated;
// - an id over the bound was skipped by the live writer but counted by the shortfall query: a
//   permanent false 'shortfall';
// - two executions with 600-byte ids were merged into one 'unknown' row (AC-32's clobber);
// - a tool_call_id that is a JSON number was skipped by the backfill but counted as a shortfall;
// - a metric written `1e2` was 100 on PostgreSQL and NULL on SQLite.
// The ids are random bytes (test/helpers/incompressible-ids.ts): PostgreSQL compresses
// `'a'.repeat(n)` under the btree limit, so such an id cannot catch the first fact.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { MAX_ID_BYTES } from '../src/identity.js';
import { steppingClock } from './helpers/clock.js';
import { incompressibleId, utf8Bytes } from './helpers/incompressible-ids.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n; // history messages are created before the store's clock starts
const CLOCK_START = T0 + 3_600_000_000_000n; // an hour later: runMigrations samples capture_since here

/** The digest that stands in for an execution id beyond the bound, computed independently of src/. */
const digestOf = (id: string) => `sha256:${createHash('sha256').update(Buffer.from(id, 'utf8')).digest('hex')}`;

describeBothDialects('identity bounds', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect); // host tables only: runMigrations installs the package
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const keysOf = async () =>
    Object.fromEntries((await db.query<{ key: string; value: string }>('SELECT key, value FROM kandev_meta')).map((k) => [k.key, k.value]));

  /** A history subagent message created `s` seconds after T0. */
  const history = (id: string, s: bigint, over: { toolCallId?: unknown; taskId?: string; turnId?: string; subagent?: Record<string, unknown> } = {}) =>
    insertMessage(db, {
      id,
      sessionId: 's1',
      taskId: over.taskId ?? 'task-1',
      turnId: over.turnId ?? 'turn-1',
      metadata: JSON.stringify({
        tool_call_id: 'toolCallId' in over ? over.toolCallId : id,
        status: 'completed',
        normalized: { kind: 'subagent_task', subagent_task: over.subagent ?? { model: 'm' } },
      }),
      createdAt: hostTimestamp(db, T0 + s * SECOND),
    });

  it('3 KB incompressible tool_call_id, task id or turn id in history never blocks activation', async () => {
    const longTool = incompressibleId(3072, 'base64');
    const longTask = incompressibleId(3072, 'hex');
    const longTurn = incompressibleId(3072, 'utf8');
    await history('m-long-tool', 1n, { toolCallId: longTool });
    await history('m-long-task', 2n, { taskId: longTask });
    await history('m-long-turn', 3n, { turnId: longTurn });
    await history('m-clean', 4n);

    const warnings: object[] = [];
    const report = await db.store({ clock: steppingClock(CLOCK_START), logger: { warn: (f) => void warnings.push(f) } }).runMigrations();
    expect(warnings).toEqual([]);
    expect(report.ok).toBe(true);
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      // The data is what the fact needs: PostgreSQL cannot index such an id in the upsert key.
      await expect(
        db.query(
          `INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, observed_at, updated_at)
                  VALUES ('probe', 's1', 'task-1', 'unknown', $1, now(), now())`,
          [longTool],
        ),
      ).rejects.toMatchObject({ code: '54000' });
    }
    const keys = await keysOf();
    expect(keys[ACTIVATION_KEYS.captureSince]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);

    // Skipped exactly as the live writer skips such a frame (AC-2 / AC-21a); a long turn id is
    // "not reported" there and here, so its subagent is kept with turn_id NULL.
    const rows = await db.store().listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.task_id, r.turn_id]).sort()).toEqual([
      ['m-clean', 'task-1', 'turn-1'],
      ['m-long-turn', 'task-1', null],
    ]);
    // backfill_through names the newest message the backfill's own predicate admits.
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe('2026-07-25T17:20:04.000000000Z');
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 0 });
  });

  it('an id over the bound, skipped by the live writer, is not a shortfall', async () => {
    const clock = steppingClock(CLOCK_START, SECOND);
    const store = db.store({ clock });
    expect((await store.runMigrations()).ok).toBe(true);
    const cases = [
      { toolCallId: incompressibleId(600, 'hex'), sessionId: 's1', taskId: 'task-1' },
      { toolCallId: 'toolu-ok-1', sessionId: 's1', taskId: incompressibleId(MAX_ID_BYTES + 1, 'utf8') },
    ];
    for (const [i, c] of cases.entries()) {
      expect(utf8Bytes(c.toolCallId) > MAX_ID_BYTES || utf8Bytes(c.taskId) > MAX_ID_BYTES).toBe(true);
      await insertMessage(db, {
        id: `m-${i}`,
        sessionId: c.sessionId,
        taskId: c.taskId,
        metadata: subagentMetadata({ toolCallId: c.toolCallId, subagent: {} }),
        createdAt: hostTimestamp(db, clock()),
      });
      expect(await store.recordFrame({ ...c, executionId: 'e-1', payload: {} })).toBe('skipped_no_identity');
    }
    // One subagent recorded normally, so the verdict has a row to read.
    await insertMessage(db, {
      id: 'm-ok',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: 'toolu-ok', subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'toolu-ok', executionId: 'e-1', payload: {} })).toBe('persisted');

    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, excess: 0, verdict: 'healthy' });
    // The bound is inclusive: at exactly MAX_ID_BYTES the same message is expected and recorded.
    const atBound = incompressibleId(MAX_ID_BYTES, 'utf8');
    await insertMessage(db, {
      id: 'm-bound',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: atBound, subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.checkHealth()).toMatchObject({ shortfall: 1 });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: atBound, executionId: 'e-1', payload: {} })).toBe('persisted');
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });

  it('two executions with 600-byte ids and one tool_call_id keep two rows (AC-32), each merging its own frames', async () => {
    const store = db.store({ clock: steppingClock(CLOCK_START) });
    expect((await store.runMigrations()).ok).toBe(true);
    const execA = incompressibleId(600, 'base64');
    const execB = incompressibleId(600, 'utf8');
    const f = (executionId: string, payload: Record<string, unknown>, toolStatus?: string) => ({
      sessionId: 's1',
      taskId: 'task-1',
      toolCallId: 'toolu-shared',
      executionId,
      toolStatus,
      payload,
    });
    expect(await store.recordFrame(f(execA, { model: 'model-a' }))).toBe('persisted');
    expect(await store.recordFrames([f(execB, { model: 'model-b' }), f(execA, { total_tokens: 11 }, 'completed')])).toEqual(['persisted', 'persisted']);
    expect(await store.recordFrame(f(execB, { total_tokens: 22 }, 'completed'))).toBe('persisted');

    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.agent_execution_id, r.model, r.total_tokens, r.tool_status]).sort()).toEqual(
      [
        [digestOf(execA), 'model-a', 11, 'completed'],
        [digestOf(execB), 'model-b', 22, 'completed'],
      ].sort(),
    );
    // An identity the database cannot index is not an absent one: no 'unknown' row, no
    // unknown_execution count (AC-31 is for frames without an execution id).
    expect(store.counters()).toMatchObject({ persisted: 4, unknown_execution: 0 });
  });

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

  it('the bound fits the whole upsert key: three ids of exactly MAX_ID_BYTES incompressible bytes are recorded', async () => {
    const session = incompressibleId(MAX_ID_BYTES, 'base64');
    const execution = incompressibleId(MAX_ID_BYTES, 'utf8');
    const toolCall = incompressibleId(MAX_ID_BYTES, 'hex');
    const turn = incompressibleId(MAX_ID_BYTES, 'utf8');
    const task = incompressibleId(MAX_ID_BYTES, 'base64');
    await insertSession(db, session, task);
    const store = db.store({ clock: steppingClock(CLOCK_START) });
    expect((await store.runMigrations()).ok).toBe(true);
    expect(await store.recordFrame({ sessionId: session, taskId: task, executionId: execution, toolCallId: toolCall, turnId: turn, payload: {} })).toBe(
      'persisted',
    );
    const [row] = await store.listBySession(session);
    expect(row).toMatchObject({ task_session_id: session, task_id: task, agent_execution_id: execution, tool_call_id: toolCall, turn_id: turn });
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      // The budget is real: the limit counts every column of the key's btree entry, so three
      // ids that each fit alone (1,000 bytes < 2,704) do not fit together.
      const big = () => incompressibleId(1000, 'base64');
      const [s, e, t] = [big(), big(), big()];
      await insertSession(db, s, 'task-1');
      await expect(
        db.query(
          `INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, observed_at, updated_at)
                  VALUES ('probe', $1, 'task-1', $2, $3, now(), now())`,
          [s, e, t],
        ),
      ).rejects.toMatchObject({ code: '54000' });
    }
  });
});
