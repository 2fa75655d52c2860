// A database function the package did not create never stops it and is never executed (issue
// #16 item 3, issue 30 items 7 and 8). On PostgreSQL a second, real role — one that can only
// create objects on the operator's search_path — plants functions with the package's comment
// and a body that returns false (which would blind the backfill and the shortfall check) and
// records every call: subagent_context_is_json(text), the name 0.2's helper had, and
// pg_input_is_valid(text, text), the very name the statements call — in the package's schema
// before the first migrate, or in a schema earlier on search_path, also on a search_path that
// names pg_catalog after it (where an unqualified call reaches the planted one: the control
// below shows it). None of it changes anything: the statements that test JSON run with their
// transaction's search_path pinned to pg_catalog first and, on PostgreSQL 15, the package's own
// schema subagent_context next (queries/postgres/set_local_search_path.sql), so the built-in
// (16+) or the package's own helper (15) answers, the history is backfilled, health reports the
// real shortfall, and the planted functions never run. What is left is refused, never run: on
// 15, a schema subagent_context another role (one with CREATE on the database) made first.
//
// SQLite has no such object: json_valid is built in, and a function lives on the connection
// that registers it, never in the database file. The SQLite case below shows the equivalent
// path is not attackable: another process's connection-level json_valid returning 0, while it
// writes the database, reaches neither the operator's migration nor its health check.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { clientFor, databaseName, poolFor } from '../scripts/lib/postgres-database.js';
import { packageSchema } from '../generated/postgres/index.js';
import { createPostgresStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;
/** The comment the package writes on its helper: forgeable, so it must not be what is trusted. */
const PACKAGE_COMMENT = /IS '(subagent-context json helper v\d+[^']*)'/.exec(readFileSync('schema/postgres/004_json_helpers.sql', 'utf8'))![1];

const step = (report: { steps: { name: string; status: string; error?: string }[] }, name: string) => report.steps.find((s) => s.name === name);

describe('a planted function never stops the package and is never executed [postgres]', () => {
  const planter = `planter_${process.pid}_${Date.now().toString(36)}`;
  let db: TestDb;
  const pools: pg.Pool[] = [];

  beforeEach(async () => {
    db = await openTestDb('postgres');
    await insertSession(db, 's1', 'task-1');
    await insertSubagentMessage(db, { id: 'm-history', sessionId: 's1', toolCallId: 'tc-history', createdAt: hostTimestamp(db, T0) });
    // Every call of the planted function leaves a row here (it runs as its caller, who can write it).
    await db.exec(`CREATE TABLE planted_calls (at timestamptz NOT NULL DEFAULT now()); GRANT INSERT ON planted_calls TO PUBLIC`);
    await db.exec(`CREATE ROLE ${planter} NOLOGIN; GRANT CREATE ON SCHEMA public TO ${planter};
                   GRANT CREATE ON DATABASE ${databaseName(db.location)} TO ${planter}`);
  });
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.end();
    await db.close();
    const admin = clientFor(inject('pgUrl'));
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${planter}`);
    await admin.end();
  });

  /** As the second role: `fn` (a signature) in `schema`, carrying the package's comment, answering false. */
  async function plant(schema: string, fn = 'subagent_context_is_json(doc text)'): Promise<void> {
    const client = await db.pool!.connect();
    try {
      await client.query(`SET ROLE ${planter}`);
      if (schema !== 'public') await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`CREATE FUNCTION ${schema}.${fn} RETURNS boolean LANGUAGE plpgsql
                            AS $$ BEGIN INSERT INTO public.planted_calls DEFAULT VALUES; RETURN false; END $$`);
      await client.query(`COMMENT ON FUNCTION ${schema}.${fn} IS '${PACKAGE_COMMENT}'`);
    } finally {
      await client.query('RESET ROLE');
      client.release();
    }
  }
  const plantedCalls = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM planted_calls'))[0].n);
  const helperOwners = async () =>
    db.query<{ schema: string; name: string; owner: string }>(
      `SELECT n.nspname AS schema, p.proname AS name, p.proowner::regrole::text AS owner FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
        WHERE p.proname IN ('subagent_context_is_json', 'pg_input_is_valid') AND p.pronamespace <> 'pg_catalog'::regnamespace ORDER BY 1, 2`,
    );

  const version = async () => Number((await db.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`))[0].v);
  const operator = async () => (await db.query<{ u: string }>('SELECT current_user AS u'))[0].u;
  /** What the package itself created: nothing on 16+, its pg_input_is_valid in subagent_context on 15. */
  const ownHelpers = async () => ((await version()) >= 160000 ? [] : [{ schema: 'subagent_context', name: 'pg_input_is_valid', owner: await operator() }]);
  const byName = (rows: { schema: string; name: string }[]) => rows.sort((x, y) => `${x.schema}.${x.name}`.localeCompare(`${y.schema}.${y.name}`));
  /** A pool whose connections carry `searchPath` as their own (ended before the database is dropped). */
  function poolWithPath(searchPath: string): pg.Pool {
    const url = new URL(db.location);
    url.searchParams.set('options', `-c search_path=${searchPath}`);
    const pool = poolFor({ connectionString: url.toString(), max: 2 });
    pools.push(pool);
    return pool;
  }
  /** A message the writer missed, after activation: the shortfall check must see it. */
  const loseOne = () => insertSubagentMessage(db, { id: 'm-lost', sessionId: 's1', toolCallId: 'tc-lost', createdAt: hostTimestamp(db, T0 + 5_000_000_000n) });

  it('planted in the package schema before the first migrate: the history is backfilled, health sees a real shortfall, it never runs', async () => {
    await plant('public');
    const logger = recordingLogger();
    const report = await db.store({ clock: steppingClock(T0 + 1_000_000_000n), logger }).runMigrations();

    expect(report.ok).toBe(true);
    expect(logger.lines).toEqual([]);
    expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
    expect(await db.query('SELECT count(*)::int AS n FROM kandev_meta')).toEqual([{ n: 3 }]);
    await loseOne();
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    expect(await plantedCalls()).toBe(0);
    // Left as it was: not replaced, not dropped.
    expect(await helperOwners()).toEqual(byName([...(await ownHelpers()), { schema: 'public', name: 'subagent_context_is_json', owner: planter }]));
  });

  it('planted in a schema earlier on search_path after activation: migrate and health go on and never run it', async () => {
    expect((await db.store({ clock: steppingClock(T0 + 1_000_000_000n) }).runMigrations()).ok).toBe(true);
    await plant('planted');
    await loseOne();
    const logger = recordingLogger();
    const store = createPostgresStore(poolWithPath('planted,public'), { clock: steppingClock(T0 + 9_000_000_000n), logger });
    expect((await store.runMigrations()).ok).toBe(true);
    expect(await store.checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    expect(logger.lines).toEqual([]);
    expect(await plantedCalls()).toBe(0);
  });

  it('pg_input_is_valid(text, text) planted in the package schema before the first migrate: backfilled, a real shortfall, never run', async () => {
    await plant('public', 'pg_input_is_valid(doc text, type text)');
    const logger = recordingLogger();
    const report = await db.store({ clock: steppingClock(T0 + 1_000_000_000n), logger }).runMigrations();
    expect(report.ok).toBe(true);
    expect(logger.lines).toEqual([]);
    expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
    await loseOne();
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    expect(await plantedCalls()).toBe(0);
    expect(await helperOwners()).toEqual(byName([...(await ownHelpers()), { schema: 'public', name: 'pg_input_is_valid', owner: planter }]));
  });

  for (const searchPath of ['planted,public', 'planted,pg_catalog,public']) {
    it(`pg_input_is_valid(text, text) planted earlier on search_path (${searchPath}) before the backfill: backfilled, a real shortfall, never run`, async () => {
      // The package's tables in public beforehand (on this path a first migrate would create
      // them in the first schema, the planted one); its JSON helper not yet (15 creates it below).
      for (const script of packageSchema.filter((x) => x.name !== 'json_helpers')) await db.exec(script.sql);
      await plant('planted', 'pg_input_is_valid(doc text, type text)');
      const pool = poolWithPath(searchPath);
      // The control: on this path an unqualified call reaches the planted function wherever
      // pg_catalog lacks it (15) or comes after it (pg_catalog named late).
      const reachable = (await version()) < 160000 || searchPath.indexOf('pg_catalog') > searchPath.indexOf('planted');
      const [{ ok }] = (await pool.query<{ ok: boolean }>(`SELECT pg_input_is_valid('{}', 'jsonb') AS ok`)).rows;
      expect({ ok, calls: await plantedCalls() }).toEqual(reachable ? { ok: false, calls: 1 } : { ok: true, calls: 0 });
      const before = await plantedCalls();

      const logger = recordingLogger();
      const store = createPostgresStore(pool, { clock: steppingClock(T0 + 1_000_000_000n), logger });
      const report = await store.runMigrations();
      expect(report.ok).toBe(true);
      expect(logger.lines).toEqual([]);
      expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
      await loseOne();
      expect(await store.checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
      // Health on a read-only connection (a hot standby's only kind) pins its search_path too.
      const readOnly = createPostgresStore(poolWithPath(`${searchPath} -c default_transaction_read_only=on`));
      expect(await readOnly.checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
      expect(await plantedCalls()).toBe(before);
      expect(await helperOwners()).toEqual(byName([...(await ownHelpers()), { schema: 'planted', name: 'pg_input_is_valid', owner: planter }]));
    });
  }

  it('a schema subagent_context another role made first: on 15 refused, never run; on 16+ never looked at', async () => {
    await plant('subagent_context', 'pg_input_is_valid(doc text, type text)');
    const logger = recordingLogger();
    const report = await db.store({ clock: steppingClock(T0 + 1_000_000_000n), logger }).runMigrations();
    if ((await version()) >= 160000) {
      // The pinned path is pg_catalog, then the session's: the built-in answers.
      expect(report.ok).toBe(true);
      expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
      await loseOne();
      expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    } else {
      // Only a role with CREATE on the database can do this: refused, named, never run.
      expect(report.ok).toBe(false);
      expect(step(report, 'ensure_json_helpers')?.error).toContain(`schema subagent_context owned by role ${planter}`);
      expect(step(report, 'backfill_subagent_contexts')?.error).toMatch(/^not run: PostgreSQL 15's JSON helper is not the package's own/);
      expect((await db.store().checkHealth()).verdict).toBe('not_activated'); // no key was written
    }
    expect(await plantedCalls()).toBe(0);
    expect(await helperOwners()).toEqual([{ schema: 'subagent_context', name: 'pg_input_is_valid', owner: planter }]);
  });

  it("on 15, the package's helper lives in its own schema subagent_context with its search_path pinned; on 16+ there is none", async () => {
    expect((await db.store({ clock: steppingClock(T0 + 1_000_000_000n) }).runMigrations()).ok).toBe(true);
    const helpers = await db.query<{ schema: string; config: string[]; definer: boolean }>(
      `SELECT p.pronamespace::regnamespace::text AS schema, p.proconfig AS config, p.prosecdef AS definer
         FROM pg_proc AS p WHERE p.proname = 'pg_input_is_valid' AND p.pronamespace <> 'pg_catalog'::regnamespace`,
    );
    const schema = await db.query<{ owner: string; usage: boolean; create: boolean; relations: number }>(
      `SELECT n.nspowner::regrole::text AS owner, has_schema_privilege('public', n.oid, 'USAGE') AS usage,
              has_schema_privilege('public', n.oid, 'CREATE') AS create,
              (SELECT count(*)::int FROM pg_class AS c WHERE c.relnamespace = n.oid) AS relations
         FROM pg_namespace AS n WHERE n.nspname = 'subagent_context'`,
    );
    if ((await version()) >= 160000) {
      expect({ helpers, schema }).toEqual({ helpers: [], schema: [] });
      return;
    }
    expect(helpers).toEqual([{ schema: 'subagent_context', config: ['search_path=pg_catalog, pg_temp'], definer: false }]);
    // The operator's, usable by any role that checks health, writable by none but its owner, holding no table.
    expect(schema).toEqual([{ owner: await operator(), usage: true, create: false, relations: 0 }]);
  });
});

describe('the SQLite equivalent is not attackable [sqlite]', () => {
  let db: TestDb;
  let other: Database.Database | undefined;
  beforeEach(async () => {
    db = await openTestDb('sqlite');
  });
  afterEach(async () => {
    other?.close();
    await db.close();
  });

  it("another connection's json_valid returning 0 reaches neither the operator's migration nor its health check", async () => {
    // A second process on the same file defines a blinding json_valid and writes history with it in place.
    other = new Database(db.location);
    other.function('json_valid', { deterministic: true }, (_doc: unknown) => 0); // one argument, as the built-in
    const at = hostTimestamp(db, T0);
    other.prepare('INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES (?, ?, ?, ?)').run('s1', 'task-1', at, at);
    await insertSubagentMessage(db, { id: 'm-history', sessionId: 's1', toolCallId: 'tc-history', createdAt: at });
    expect(other.prepare(`SELECT json_valid('{}') AS v`).get()).toEqual({ v: 0 });

    const report = await db.store({ clock: steppingClock(T0 + 1_000_000_000n) }).runMigrations();
    expect(report.ok).toBe(true);
    expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
    await insertSubagentMessage(db, { id: 'm-lost', sessionId: 's1', toolCallId: 'tc-lost', createdAt: hostTimestamp(db, T0 + 5_000_000_000n) });
    expect((await db.store().checkHealth()).shortfall).toBe(1);
    // Nothing a database file holds can define a function: the schema has only tables, indexes, views and triggers.
    expect(await db.query(`SELECT DISTINCT type FROM sqlite_schema ORDER BY type`)).toEqual([{ type: 'index' }, { type: 'table' }]);
  });
});
