// runMigrations() and the table's shape (AC-17…AC-20, AC-33…AC-34): fresh, feature-predating
// and pre-amendment databases end in the same amended shape, rows and timestamps survive
// the upgrade byte for byte, execution_since follows the OBSERVED shape, and a failed
// upgrade leaves the pre-amendment table whole and retries.
import { expect, it } from 'vitest';
import { legacySchema as postgresLegacy } from '../generated/postgres/index.js';
import { legacySchema as sqliteLegacy } from '../generated/sqlite/index.js';
import { ACTIVATION_KEYS } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import {
  columnSet,
  endStateFacts,
  indexSet,
  insertWithoutForeignKeys,
  metaKeys,
  rawRows,
  seedPreAmendmentRows,
  stepStatuses,
  tableExists,
} from './helpers/migration-db.js';
import { describeBothDialects } from './helpers/test-db.js';
import { testDbsPerTest } from './helpers/test-dbs-per-test.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const sqliteLegacySql = sqliteLegacy.map((s) => s.sql).join('\n');
const postgresLegacySql = postgresLegacy.map((s) => s.sql).join('\n');
const KEY_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

describeBothDialects('runMigrations: schema', (dialect) => {
  const db = testDbsPerTest(dialect);

  /** What a fresh database looks like after runMigrations(): the reference for clause 4. */
  const freshShape = async () => {
    const fresh = await db();
    expect((await fresh.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
    return { indexes: await indexSet(fresh), columns: await columnSet(fresh) };
  };

  it('AC-17, AC-33b: a fresh database gets the table, its indexes, execution_since and both backfill keys', async () => {
    const d = await db();
    const report = await d.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report)).toMatchObject({
      ensure_kandev_meta: 'applied', // the host tables here carry no kandev_meta
      create_subagent_table: 'applied',
      upgrade_pre_amendment_table: 'skipped',
      record_execution_since: 'applied',
      backfill_subagent_contexts: 'applied',
    });
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false });
    expect((await indexSet(d)).filter((i) => i.includes('idx_subagents_'))).toHaveLength(4);
    const keys = await metaKeys(d);
    expect(keys[ACTIVATION_KEYS.executionSince]).toMatch(KEY_FORM);
    expect(keys[ACTIVATION_KEYS.captureSince]).toMatch(KEY_FORM);
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(''); // AC-24f: nothing to recover
  });

  it('AC-17, AC-18: a database predating the feature keeps its data, gains the feature, and a second run changes nothing', async () => {
    const d = await db();
    await insertSession(d, 's1');
    await insertMessage(d, { id: 'plain', sessionId: 's1', metadata: '{"kind":"text"}', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00.000001') });
    await insertMessage(d, {
      id: 'sub',
      sessionId: 's1',
      turnId: 'turn-1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:01.5'),
      metadata: subagentMetadata({ toolCallId: 'toolu_1', toolStatus: 'completed', subagent: { status: 'completed', total_tokens: 10 } }),
    });
    const messagesBefore = await d.query(`SELECT * FROM task_session_messages ORDER BY id`);
    const store = d.store({ clock: steppingClock() });

    const first = await store.runMigrations();
    expect(first.ok).toBe(true);
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false });
    expect(await d.query(`SELECT * FROM task_session_messages ORDER BY id`)).toEqual(messagesBefore);
    const keys = await metaKeys(d);
    expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    const rows = await d.query(`SELECT id, tool_call_id, source FROM task_session_subagents`);
    expect(rows.map((r) => [r.tool_call_id, r.source])).toEqual([['toolu_1', 'backfill']]);

    const schemaAfterFirst = [await indexSet(d), await columnSet(d)];
    const second = await store.runMigrations();
    expect(second.ok).toBe(true);
    expect(second.steps.every((s) => s.status === 'skipped')).toBe(true);
    expect([await indexSet(d), await columnSet(d)]).toEqual(schemaAfterFirst);
    expect(await d.query(`SELECT id, tool_call_id, source FROM task_session_subagents`)).toEqual(rows);
    expect(await metaKeys(d)).toEqual(keys);
  });

  it('AC-33, AC-34: a pre-amendment table is amended with every row intact, the fresh index set, and the end state after EACH of two runs', async () => {
    const reference = await freshShape();
    const d = await db('legacy');
    await insertSession(d, 's1');
    await insertSession(d, 's2');
    await seedPreAmendmentRows(d);
    // A row whose session is already gone, as a host running without foreign keys leaves one:
    // the rebuild keeps it too (clause 5: every pre-existing row).
    await insertWithoutForeignKeys(
      d,
      `INSERT INTO task_session_subagents (id, task_session_id, task_id, tool_call_id, source, observed_at, updated_at) VALUES ('row-orphan', 'gone', 'task-gone', 'toolu_o', 'live', $1, $1)`,
      [hostTimestamp(dialect, '2026-07-01 00:00:00')],
    );
    const before = await rawRows(d);
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: false, threeColumnUnique: false, twoColumnUnique: true });
    const store = d.store({ clock: steppingClock() });

    for (const run of [1, 2]) {
      const report = await store.runMigrations();
      expect(report.ok).toBe(true);
      expect(stepStatuses(report).upgrade_pre_amendment_table).toBe(run === 1 ? 'applied' : 'skipped');
      expect(before.map((r) => r.id)).toContain(byDialect(dialect, { sqlite: "'row-orphan'", postgres: 'row-orphan' }));
      // The six-part end state, asserted after each run (AC-34), never "unchanged" alone.
      expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false }); // 1–3
      expect(await indexSet(d)).toEqual(reference.indexes); // 4
      expect(await rawRows(d)).toEqual(before); // 5: every value, timestamps byte for byte
      expect((await d.query(`SELECT DISTINCT agent_execution_id AS e FROM task_session_subagents`)).map((r) => r.e)).toEqual(['unknown']); // 5
      expect((await metaKeys(d))[ACTIVATION_KEYS.executionSince]).toMatch(KEY_FORM); // 6
      expect(await tableExists(d, 'task_session_subagents_pre_amendment')).toBe(false);
    }
    // Beyond clause 4: the columns match a fresh database's (PostgreSQL: metrics widened to BIGINT).
    expect(await columnSet(d)).toEqual(reference.columns);
    // The amended table takes the live path's three-column upsert.
    const outcome = await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_a', executionId: 'exec-1', payload: { model: 'x' } });
    expect(outcome).toBe('persisted');
    expect(await d.query(`SELECT count(*) AS n FROM task_session_subagents WHERE tool_call_id = 'toolu_a' AND task_session_id = 's1'`)).toEqual([
      { n: byDialect(dialect, { sqlite: 2, postgres: '2' }) },
    ]);
  });

  it('AC-33: the two-column key is found by its columns, whatever its name, form or column order', async () => {
    const reference = await freshShape();
    const d = await db();
    // The pre-amendment table, its key declared instead as a unique index in reverse column
    // order under a name longer than PostgreSQL's 63-byte identifier limit.
    const legacy = byDialect(dialect, { sqlite: sqliteLegacySql, postgres: postgresLegacySql }).replace(/,\s*UNIQUE \(task_session_id, tool_call_id\)/, '');
    expect(legacy).not.toMatch(/^\s+UNIQUE \(/m);
    await d.exec(legacy);
    await d.exec(`CREATE UNIQUE INDEX pre_amendment_subagent_identity_key_with_a_name_well_beyond_sixty_three_bytes
                    ON task_session_subagents (tool_call_id, task_session_id)`);
    expect((await endStateFacts(d)).twoColumnUnique).toBe(true);
    const report = await d.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report).upgrade_pre_amendment_table).toBe('applied');
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false });
    expect(await indexSet(d)).toEqual(reference.indexes);
  });

  it('AC-33b: a table already amended but without execution_since gets the key with no rebuild and no table creation', async () => {
    const d = await db('package'); // the state a committed rebuild plus a failed key write leaves
    await insertSession(d, 's1');
    await insertSubagentRow(d, {
      id: 'r1',
      sessionId: 's1',
      executionId: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11',
      toolCallId: 't1',
      observedAt: hostTimestamp(dialect, '2026-08-01 10:00:00'),
    });
    expect(await metaKeys(d)).toEqual({});
    const report = await d.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report)).toMatchObject({
      create_subagent_table: 'skipped',
      upgrade_pre_amendment_table: 'skipped',
      record_execution_since: 'applied',
    });
    expect((await metaKeys(d))[ACTIVATION_KEYS.executionSince]).toMatch(KEY_FORM);
    // and it never re-sentinels a real execution id
    expect(await d.query(`SELECT agent_execution_id AS e FROM task_session_subagents`)).toEqual([{ e: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11' }]);
  });

  it('DESIGN §3: metric values beyond 32 bits survive on a table an earlier build created with INTEGER metrics', async () => {
    const d = await db('legacy');
    await insertSession(d, 's1');
    await insertMessage(d, {
      id: 'm1',
      sessionId: 's1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00'),
      metadata: subagentMetadata({
        toolCallId: 'toolu_big',
        toolStatus: 'completed',
        subagent: { total_tokens: 5_000_000_000, duration_ms: 4_294_967_296, tool_use_count: 2_147_483_648 },
      }),
    });
    const report = await d.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    if (byDialect(dialect, { sqlite: false, postgres: true })) expect(stepStatuses(report).widen_metric_columns).toBe('applied');
    const [row] = await d.store().listBySession('s1');
    expect([row.total_tokens, row.duration_ms, row.tool_use_count]).toEqual([5_000_000_000, 4_294_967_296, 2_147_483_648]);
  });
});
