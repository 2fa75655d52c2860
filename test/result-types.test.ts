// The generated result types hold at run time. SQLite cannot type an expression column, so
// its types come from the alias hints in queries/sqlite (`AS "shortfall!::bigint"`,
// scripts/lib/column-hints.ts), a claim the author makes; PostgreSQL's come from pgtyped.
// Every product statement that carries a type hint runs on both dialects against a store
// holding a settled and an unsettled row, and each value it returns must be one of the types
// its generated I…Result declares for that column (read from the generated module itself).
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as postgresGenerated from '../generated/postgres/index.js';
import * as sqliteGenerated from '../generated/sqlite/index.js';
import { typeHintedColumns } from '../scripts/lib/column-hints.js';
import { DIALECT_ONLY, pascal, parseDialect } from '../scripts/lib/query-files.js';
import { postgresWindow } from '../src/postgres/health.js';
import { sqliteWindow } from '../src/sqlite/health.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { withPinnedSearchPath } from './helpers/pinned-search-path.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;
const EXECUTION = '6f1c1b7e-2f0a-4d55-9a43-0d6c1e0b7a01';

/** The product statements whose SQLite text carries a type hint: the ones under test. */
const HINTED = parseDialect('.', 'sqlite').filter((q) => q.group.folder === '' && typeHintedColumns(q.statement).length > 0);

/** Column name → declared type text, from the generated module's I…Result interface. */
function declaredResult(dialect: string, fileBase: string, queryName: string): Map<string, string> {
  const file = `generated/${dialect}/${fileBase}.queries.ts`;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const wanted = `I${pascal(queryName)}Result`;
  const iface = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === wanted);
  if (!iface) throw new Error(`${file}: no interface ${wanted}`);
  return new Map(iface.members.filter(ts.isPropertySignature).map((m) => [(m.name as ts.Identifier | ts.StringLiteral).text, m.type?.getText(source) ?? '']));
}

/** Whether a value is one of the members of a declared union such as `string | null`. */
function matchesDeclared(value: unknown, declared: string): boolean {
  return declared.split('|').some((part) => {
    const t = part.trim();
    switch (t) {
      case 'string':
      case 'number':
      case 'bigint':
      case 'boolean':
      case 'undefined':
        return typeof value === t;
      case 'null':
        return value === null;
      case 'Buffer':
        return Buffer.isBuffer(value);
      case 'Date':
        return value instanceof Date;
      default:
        throw new Error(`declared type "${t}" has no run-time check here`);
    }
  });
}

it('the run-time check tells the declared types apart (the control case)', () => {
  expect(matchesDeclared(1n, 'bigint')).toBe(true);
  expect(matchesDeclared(1n, 'number')).toBe(false);
  expect(matchesDeclared('1', 'bigint')).toBe(false);
  expect(matchesDeclared(null, 'string')).toBe(false);
  expect(matchesDeclared(null, 'string | null')).toBe(true);
  expect(HINTED.map((q) => q.name)).toContain('countShortfallSinceCapture');
});

describeBothDialects('generated result types hold at run time', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect);
    const clock = steppingClock(T0, SECOND);
    const store = db.store({ clock });
    expect((await store.runMigrations()).ok).toBe(true);
    // What a host may add to the package's table, so readSubagentTableHostObjects has rows to type.
    // SQLite's backfill tables, its temp tables among them: the statements that read them need them there.
    if (dialect === 'sqlite') for (const script of sqliteGenerated.backfillSchema) db.sqlite!.exec(script.sql);
    await db.exec('ALTER TABLE task_session_subagents ADD COLUMN host_note TEXT');
    await db.exec('CREATE INDEX host_idx_subagents_model ON task_session_subagents (model)');
    // The optional host index, so observeHostIndex has a row to type.
    expect((await store.ensureHostIndex()).outcome).toBe('created');
    await insertSession(db, 's1');
    for (const [toolCallId, toolStatus] of [
      ['call-settled', 'completed'],
      ['call-open', 'in_progress'],
    ] as const) {
      await insertSubagentMessage(db, { id: `m-${toolCallId}`, sessionId: 's1', toolCallId, createdAt: hostTimestamp(db, clock.now() + SECOND) });
      const outcome = await store.recordFrame({
        sessionId: 's1',
        taskId: 'task-s1',
        turnId: 'turn-1',
        executionId: EXECUTION,
        toolCallId,
        toolStatus,
        payload: { status: toolStatus, total_tokens: 1200, duration_ms: 3400, tool_use_count: 0, is_async: true },
      });
      expect(outcome).toBe('persisted');
    }
    // The usage ledger (issue 33), so reportUsageLedger has rows to type: a subagent's (one figure never reported) and a parent's.
    await db.exec(
      `INSERT INTO task_session_subagent_usage (task_session_id, agent_execution_id, tool_call_id, model, source, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
       VALUES ('s1', '${EXECUTION}', 'call-settled', 'm', 'claude-code', 2, 10, 20, 30, NULL, '2026-12-01 00:00:00')`,
    );
    await db.exec(
      `INSERT INTO task_session_parent_usage (task_session_id, model, source, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
       VALUES ('s1', 'm', 'claude-code', 1, 1, 2, 3, 4, '2026-12-01 00:00:00')`,
    );
  });
  afterAll(() => db.close());

  async function run(name: string, sinceNs: bigint): Promise<Record<string, unknown>[]> {
    const window = byDialect(dialect, { sqlite: () => sqliteWindow(sinceNs), postgres: () => postgresWindow(sinceNs) })();
    // The report's ledger statements also bind the window's end and the task scope: none (every task, no end).
    const unbounded = byDialect(dialect, { sqlite: { until: '~', untilCeil: '~' }, postgres: { until: 'infinity' } });
    // SQLite's backfill staging statements: every rowid, and a message that exists.
    const staging = { after: -(2n ** 62n), upTo: 2n ** 62n, id: 'm-call-settled' };
    const params = { ...window, ...unbounded, ...staging, taskIds: null, sessionId: 's1', turnId: 'turn-1' };
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const q = (sqliteGenerated as unknown as Record<string, { all(p: object, c: unknown): Record<string, unknown>[] }>)[name];
      return q.all(params, db.sqlite);
    }
    const q = (postgresGenerated as unknown as Record<string, { run(p: object, c: unknown): Promise<Record<string, unknown>[]> }>)[name];
    // As the package runs them: the statements that test JSON need the pinned search_path on 15.
    return withPinnedSearchPath(db.pool!, (client) => q.run(params, client));
  }

  // A statement only the other dialect has (DIALECT_ONLY) has nothing to run here.
  const here = HINTED.filter((q) => DIALECT_ONLY[q.fileBase]?.includes(dialect) ?? true);
  it.each(here.map((q) => [q.name, q] as const))('%s', async (_name, q) => {
    const declared = declaredResult(dialect, q.fileBase, q.name);
    const rows = await run(q.name, T0 - SECOND);
    expect(rows.length, 'the statement must return rows for the check to mean anything').toBeGreaterThan(0);
    expect(Object.keys(rows[0]).sort()).toEqual([...declared.keys()].sort());
    for (const row of rows) {
      for (const [column, type] of declared) {
        expect(matchesDeclared(row[column], type), `${q.name}.${column} = ${String(row[column])} (${typeof row[column]}) declared ${type}`).toBe(true);
      }
    }
  });
});
