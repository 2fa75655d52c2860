// standard_conforming_strings = off (a role's or a database's setting, or a pool's `options`)
// makes a backslash in a plain '…' literal an escape (a review, 2026-12-07): valid_jsonb.sql's
// regular expression then compiled without its backslashes and raised 2201B for any subagent
// message holding more than 1,000 '[' and '{' (code in a description is enough), so the backfill's
// mark failed on every boot and the health check failed. No PostgreSQL statement or schema file
// of the package writes a backslash in a plain literal now (chr(92) instead), and both paths
// answer under the setting. The setting is PostgreSQL's: SQLite has no escapes in '…'.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { classify } from '../scripts/lib/sql-lex.js';
import { createPostgresStore } from '../src/index.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const ROOT = join(import.meta.dirname, '..');

function sqlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sqlFiles(p) : p.endsWith('.sql') ? [p] : [];
  });
}

/** Each plain single-quoted literal holding a backslash, as `file:line`. */
function backslashLiterals(file: string): string[] {
  const sql = readFileSync(file, 'utf8');
  const classes = classify(sql);
  const found: string[] = [];
  for (let k = 0; k < sql.length; k++) {
    if (classes[k] !== 'c' || sql[k] !== "'" || /[eE]/.test(sql[k - 1] ?? '')) continue;
    let end = k + 1;
    while (end < sql.length && classes[end] === 's') end++;
    if (sql.slice(k + 1, end).includes('\\')) found.push(`${file.slice(ROOT.length + 1)}:${sql.slice(0, k).split('\n').length}`);
    k = end;
  }
  return found;
}

/** A completed subagent whose description holds 1,001 '{' (code it was asked about). */
const BRACKETS = subagentMetadata({ toolCallId: 'toolu_1', toolStatus: 'completed', subagent: { status: 'completed', description: 'fn() {}'.repeat(1001) } });

describe('PostgreSQL string literals and standard_conforming_strings [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('no statement or schema file writes a backslash in a plain literal', () => {
    const files = [...sqlFiles(join(ROOT, 'queries', 'postgres')), ...sqlFiles(join(ROOT, 'schema', 'postgres'))];
    expect(files.length).toBeGreaterThan(40);
    expect(files.flatMap(backslashLiterals)).toEqual([]);
    // The scan finds one where there is one.
    expect(backslashLiterals(join(ROOT, 'test', 'fixtures', 'backslash-literal.sql'))).toEqual(['test/fixtures/backslash-literal.sql:2']);
  });

  it('with standard_conforming_strings off, the backfill writes such a subagent’s row and the health check counts it', async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1');
    await insertMessage(db, { id: 'm1', sessionId: 's1', metadata: BRACKETS, createdAt: '2024-12-01 12:00:00' });
    const off = poolFor({ connectionString: db.location, options: '-c standard_conforming_strings=off', max: 2 });
    try {
      const store = createPostgresStore(off);
      const report = await store.runMigrations();
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await db.query(`SELECT tool_call_id, source FROM task_session_subagents`)).toEqual([{ tool_call_id: 'toolu_1', source: 'backfill' }]);
      // A subagent the writer missed after capture_since: a shortfall of 1.
      await insertMessage(db, { id: 'm2', sessionId: 's1', metadata: BRACKETS.replace('toolu_1', 'toolu_2'), createdAt: '9000-01-01 00:00:00' });
      expect((await store.checkHealth()).shortfall).toBe(1);
    } finally {
      await off.end();
    }
  });
});
