// A stored total_tokens the report may not count as a measurement: 0 (AC-7a: "not reported"),
// a negative (AC-9: "not a measurement") and, on SQLite, a value that is not an INTEGER. The
// package's writer stores none of them, but the column has no CHECK: a host's own writer, or a
// legacy row the AC-33 rebuild keeps byte for byte, may. The report reads each as unmeasured:
// it neither rejects (a negative sum once failed every report of its scope, `database_error`,
// CLI exit 7) nor counts the row as measured and drags the mean down, in every figure that
// sums or counts total_tokens — the totals, each group, the distribution and the usage
// ledger's reported_total_tokens.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const T0 = 1_785_000_000_000_000_000n;

describeBothDialects('report: a stored 0 or negative total_tokens is unmeasured', (dialect) => {
  let db: TestDb;
  const row = (id: string, totalTokens: number | null, subagentType = 'reviewer') =>
    insertSubagentRow(db, {
      id,
      sessionId: 's1',
      toolCallId: `tc-${id}`,
      turnId: 't1',
      executionId: `e-${id}`,
      subagentType,
      observedAt: hostTimestamp(db, T0 + SECOND),
      settledAt: hostTimestamp(db, T0 + 2n * SECOND),
      totalTokens,
    });

  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
  });
  afterEach(async () => db.close());

  it('a negative that outweighs the measured rows: the report still answers, from the measured rows', async () => {
    await row('ok', 500);
    await row('neg', -1000);
    const r = await db.store().report();
    expect(r.tokens).toMatchObject({ settled: 2, measured: 1, unmeasured: 1, total_tokens: 500, mean_tokens: 500 });
    expect(r.tokens.distribution).toEqual([{ from: 500, to: 1000, subagents: 1 }]);
  });

  it('a 0 and a negative beside a measured row: neither counts as measured, nor drags the mean', async () => {
    await row('ok', 5000);
    await row('neg', -1000, 'tester');
    await row('zero', 0, 'tester');
    await row('null', null, 'tester');
    const r = await db.store().report();
    expect(r.tokens).toMatchObject({ settled: 4, measured: 1, unmeasured: 3, total_tokens: 5000, mean_tokens: 5000 });
    expect(r.tokens.by_source).toEqual([{ source: 'live', rows: 4, settled: 4, measured: 1, unmeasured: 3, total_tokens: 5000, mean_tokens: 5000 }]);
    expect(r.tokens.by_subagent_type).toEqual([
      { subagent_type: 'tester', rows: 3, settled: 3, measured: 0, unmeasured: 3, total_tokens: 0, mean_tokens: null },
      { subagent_type: 'reviewer', rows: 1, settled: 1, measured: 1, unmeasured: 0, total_tokens: 5000, mean_tokens: 5000 },
    ]);
    expect(r.tokens.distribution).toEqual([{ from: 5000, to: 10000, subagents: 1 }]);
    expect(r.caveats).toContainEqual(expect.stringMatching(/^3 settled subagents reported no token usage \(total_tokens NULL, or a stored 0 or negative/));
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('SQLite: a REAL or TEXT the INTEGER column kept is no count either', async () => {
      await row('ok', 500);
      await row('real', 1500.5);
      await db.query(`UPDATE task_session_subagents SET total_tokens = '12 tokens' WHERE id = 'ok'`);
      await row('ok2', 700);
      const [{ kinds }] = await db.query<{ kinds: string }>(
        `SELECT group_concat(typeof(total_tokens), ',') AS kinds FROM (SELECT total_tokens FROM task_session_subagents ORDER BY id)`,
      );
      expect(kinds).toBe('text,integer,real'); // ok, ok2, real: the values really are stored that way
      const r = await db.store().report();
      expect(r.tokens).toMatchObject({ settled: 3, measured: 1, unmeasured: 2, total_tokens: 700, mean_tokens: 700 });
      expect(r.tokens.distribution).toEqual([{ from: 500, to: 1000, subagents: 1 }]);
    });
  }

  it("the usage ledger's reported_total_tokens leaves a negative out", async () => {
    await row('ok', 500);
    await row('neg', -1000);
    const usage = `INSERT INTO task_session_subagent_usage (task_session_id, agent_execution_id, tool_call_id, model, source, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
                   VALUES ('s1', $1, $2, 'm', 'import', 1, 100, 200, 0, 0, $3)`;
    for (const id of ['ok', 'neg']) await db.query(usage, [`e-${id}`, `tc-${id}`, hostTimestamp(db, T0 + SECOND)]);
    const r = await db.store().report();
    expect(r.usage_ledger?.all).toMatchObject({ runs: 2, subagent_tokens: 600, reported_total_tokens: 500, reported_runs: 1 });
  });
});
