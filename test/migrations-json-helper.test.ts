// The JSON validity test the backfill and health statements ask (queries/postgres/fragments/
// valid_jsonb.sql). On PostgreSQL 16 and later it is the built-in pg_input_is_valid, and the
// migration creates no function; on PostgreSQL 15 it is the package's own function of that name,
// kept at its current definition (an older one is replaced). On every dialect and version a
// document nested deeper than 1,000 — SQLite's json_valid limit — reads as invalid, and one
// nested far deeper than PostgreSQL's stack never fails the backfill; a shallow document with
// more than 1,000 brackets is still read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A subagent message whose metadata carries `extra` (raw JSON text) as one more field. */
const withExtra = (toolCallId: string, extra: string) =>
  subagentMetadata({ toolCallId, subagent: { status: 'completed' } }).replace(/}$/, `,"extra":${extra}}`);

describeBothDialects('JSON validity in the backfill', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('deeper than 1,000 reads as invalid (never an error); 1,000 deep and 1,500 shallow brackets are read', async () => {
    const docs: [string, string][] = [
      ['tc-deep-stack', withExtra('tc-deep-stack', nested(200_000))],
      ['tc-deep-1001', withExtra('tc-deep-1001', nested(1_000))], // the metadata object adds one level
      ['tc-deep-1000', withExtra('tc-deep-1000', nested(999))],
      ['tc-many', withExtra('tc-many', `[${Array.from({ length: 1_500 }, (_, i) => `{"a":[${i}],"s":"]]]]"}`).join(',')}]`)],
      ['tc-strings', withExtra('tc-strings', JSON.stringify('['.repeat(5_000)))],
    ];
    for (const [i, [, metadata]] of docs.entries()) {
      await insertMessage(db, { id: `m${i}`, sessionId: 's1', metadata, createdAt: hostTimestamp(db, T0 + BigInt(i) * 1_000n) });
    }
    const report = await db.store({ clock: steppingClock(T0 + 10_000_000_000n) }).runMigrations();
    expect(report.ok).toBe(true);
    const rows = await db.query<{ t: string }>('SELECT tool_call_id AS t FROM task_session_subagents ORDER BY 1');
    expect(rows.map((r) => r.t)).toEqual(['tc-deep-1000', 'tc-many', 'tc-strings']);
    expect((await db.store().checkHealth()).shortfall).toBe(0);
  });
});

describe('the helper PostgreSQL 15 needs, and 16 does not [postgres]', () => {
  let db: TestDb;
  let version: number;
  beforeEach(async () => {
    db = await openTestDb('postgres');
    version = Number((await db.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`))[0].v);
  });
  afterEach(async () => db.close());

  const publicHelpers = () =>
    db.query<{ name: string; comment: string | null }>(
      `SELECT p.oid::regprocedure::text AS name, obj_description(p.oid, 'pg_proc') AS comment
         FROM pg_proc AS p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`,
    );

  it('16 and later: nothing is created, the built-in answers; 15: an older definition is replaced and survives a document deeper than the stack', async () => {
    if (version >= 160000) {
      const report = await db.store({ clock: steppingClock() }).runMigrations();
      expect(report.ok).toBe(true);
      expect(report.steps.find((s) => s.name === 'ensure_json_helpers')?.status).toBe('skipped');
      expect(await publicHelpers()).toEqual([]);
      const [{ schema }] = await db.query<{ schema: string }>(`SELECT to_regprocedure('pg_input_is_valid(text, text)')::oid::regprocedure::text AS schema`);
      expect(schema).toBe('pg_input_is_valid(text,text)'); // resolved without a schema: pg_catalog's
      return;
    }
    // PostgreSQL 15: an earlier definition of the package's own (no exception block: it raises on a deep document).
    await db.exec(`CREATE FUNCTION pg_input_is_valid(doc text, type text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
                   AS $$ SELECT doc::jsonb IS NOT NULL $$`);
    const deep = nested(200_000);
    await expect(db.query(`SELECT pg_input_is_valid($1, 'jsonb') AS ok`, [deep])).rejects.toThrow(/stack depth/);
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.steps.find((s) => s.name === 'ensure_json_helpers')?.status).toBe('applied');
    expect(await publicHelpers()).toEqual([{ name: 'pg_input_is_valid(text,text)', comment: 'subagent-context json helper v4 (PostgreSQL 15)' }]);
    expect(await db.query(`SELECT pg_input_is_valid($1, 'jsonb') AS ok`, [deep])).toEqual([{ ok: false }]);
    expect(await db.query(`SELECT pg_input_is_valid('{"a":1}', 'jsonb') AS ok, pg_input_is_valid('{', 'jsonb') AS bad`)).toEqual([{ ok: true, bad: false }]);
    const again = await db.store({ clock: steppingClock() }).runMigrations();
    expect(again.steps.find((s) => s.name === 'ensure_json_helpers')?.status).toBe('skipped');
  });
});
