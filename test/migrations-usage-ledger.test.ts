// The usage ledger (issue 33) arrives by runMigrations() on a store the previous release left
// (every table but the ledger's three): ensure_usage_ledger applies, nothing else changes,
// every row stays byte for byte, and the next pass is the all-skipped fast path. A fresh and
// a pre-amendment database get it too.
import { expect, it } from 'vitest';
import * as postgresImport from '../generated/postgres/import/index.js';
import * as sqliteImport from '../generated/sqlite/import/index.js';
import { steppingClock } from './helpers/clock.js';
import { rawRows, stepStatuses, tableExists } from './helpers/migration-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects } from './helpers/test-db.js';
import { testDbsPerTest } from './helpers/test-dbs-per-test.js';

const LEDGER = ['task_session_subagent_usage', 'task_session_parent_usage', 'subagent_context_import_progress'];

describeBothDialects('runMigrations: the usage ledger', (dialect) => {
  const db = testDbsPerTest(dialect);

  it('a store of the previous footprint gains the three tables and nothing else changes; the next pass skips everything', async () => {
    const d = await db();
    const store = d.store({ clock: steppingClock() });
    expect((await store.runMigrations()).ok).toBe(true);
    for (const t of LEDGER) await d.exec(`DROP TABLE ${t}`); // what 0.2.0 left: everything but the ledger
    await insertSession(d, 's1');
    expect(
      await store.recordFrame({
        sessionId: 's1',
        taskId: 't1',
        executionId: 'e1',
        toolCallId: 'toolu_1',
        toolStatus: 'completed',
        payload: { total_tokens: 5 },
      }),
    ).toBe('persisted');
    const rowsBefore = await rawRows(d);
    const keysBefore = await d.query('SELECT key, value FROM kandev_meta ORDER BY key');

    const report = await store.runMigrations();
    expect(report.ok).toBe(true);
    const statuses = stepStatuses(report);
    expect(statuses.ensure_usage_ledger).toBe('applied');
    expect(Object.entries(statuses).filter(([name, status]) => name !== 'ensure_usage_ledger' && status !== 'skipped')).toEqual([]);
    for (const t of LEDGER) expect(await tableExists(d, t)).toBe(true);
    expect(await rawRows(d)).toEqual(rowsBefore);
    expect(await d.query('SELECT key, value FROM kandev_meta ORDER BY key')).toEqual(keysBefore);

    const again = await store.runMigrations();
    expect(again.steps.every((s) => s.status === 'skipped' && s.detail?.startsWith('already current'))).toBe(true);
  });

  it('a fresh and a pre-amendment database get the ledger in their first pass', async () => {
    for (const layers of [[], ['legacy']] as const) {
      const d = await db(...layers);
      const report = await d.store({ clock: steppingClock() }).runMigrations();
      expect(report.ok).toBe(true);
      expect(stepStatuses(report).ensure_usage_ledger).toBe('applied');
      for (const t of LEDGER) expect(await tableExists(d, t)).toBe(true);
    }
  });

  it('importAddSubagentUsage adds: a NULL delta leaves a figure as it is, a figure never reported stays NULL, never 0', async () => {
    const d = await db();
    expect((await d.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
    await insertSession(d, 's1');
    const add = async (requests: number | null, inputTokens: number | null, outputTokens: number | null) => {
      const params = {
        sessionId: 's1',
        executionId: 'e1',
        toolCallId: 'toolu_1',
        model: 'm',
        source: 'claude-code',
        requests,
        inputTokens,
        outputTokens,
        at: '2026-12-01 00:00:00',
      };
      if (d.sqlite) sqliteImport.importAddSubagentUsage.run(params, d.sqlite);
      else await postgresImport.importAddSubagentUsage.run(params, d.pool!);
    };
    const figures = async () =>
      (await d.query<Record<string, unknown>>('SELECT requests, input_tokens, output_tokens, cache_read_input_tokens FROM task_session_subagent_usage')).map(
        (r) => Object.values(r).map((v) => (v === null ? null : Number(v))),
      );
    await add(1, 10, null);
    expect(await figures()).toEqual([[1, 10, null, null]]);
    await add(0, null, null); // a later line of a counted response that changed nothing
    expect(await figures()).toEqual([[1, 10, null, null]]);
    await add(1, 5, 7);
    expect(await figures()).toEqual([[2, 15, 7, null]]);
  });
});
