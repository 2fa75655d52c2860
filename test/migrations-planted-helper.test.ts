// A database function the package did not create is never trusted or executed (issue #16
// item 3). On PostgreSQL a second, real role — one that can only create objects on the
// operator's search_path — plants subagent_context_is_json(text) with the package's own
// comment and a body that returns false (which would blind the backfill and the shortfall
// check) and records every call. Planted in the package's schema before the first migrate, or
// in a schema earlier on search_path after it, the function is never created over and never
// runs: ensure_json_helpers fails with a WARN naming it, the backfill is not run, and health
// rejects with `untrusted_object` instead of running its comparison.
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
import { HealthCheckError } from '../src/health/errors.js';
import { createPostgresStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;
/** The comment the package writes on its helper: forgeable, so it must not be what is trusted. */
const PACKAGE_COMMENT = /IS '(subagent-context json helper v\d+)'/.exec(readFileSync('schema/postgres/004_json_helpers.sql', 'utf8'))![1];

const step = (report: { steps: { name: string; status: string; error?: string }[] }, name: string) => report.steps.find((s) => s.name === name);

describe('a planted subagent_context_is_json is never executed [postgres]', () => {
  const planter = `planter_${process.pid}_${Date.now().toString(36)}`;
  let db: TestDb;

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
    await db.close();
    const admin = clientFor(inject('pgUrl'));
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${planter}`);
    await admin.end();
  });

  /** As the second role: the helper in `schema`, carrying the package's comment, answering false. */
  async function plant(schema: string): Promise<void> {
    const client = await db.pool!.connect();
    try {
      await client.query(`SET ROLE ${planter}`);
      if (schema !== 'public') await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`CREATE FUNCTION ${schema}.subagent_context_is_json(doc text) RETURNS boolean LANGUAGE plpgsql
                            AS $$ BEGIN INSERT INTO public.planted_calls DEFAULT VALUES; RETURN false; END $$`);
      await client.query(`COMMENT ON FUNCTION ${schema}.subagent_context_is_json(text) IS '${PACKAGE_COMMENT}'`);
    } finally {
      await client.query('RESET ROLE');
      client.release();
    }
  }
  const plantedCalls = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM planted_calls'))[0].n);
  const helperOwners = async () =>
    db.query<{ schema: string; owner: string }>(
      `SELECT n.nspname AS schema, p.proowner::regrole::text AS owner FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
        WHERE p.proname = 'subagent_context_is_json' ORDER BY 1`,
    );

  it('planted in the package schema before the first migrate: not created over, not run; the steps that need it fail with a WARN', async () => {
    await plant('public');
    const logger = recordingLogger();
    const report = await db.store({ clock: steppingClock(T0 + 1_000_000_000n), logger }).runMigrations();

    expect(report.ok).toBe(false);
    expect(step(report, 'ensure_json_helpers')).toMatchObject({ status: 'failed' });
    expect(step(report, 'ensure_json_helpers')?.error).toContain(`public.subagent_context_is_json(text) owned by role ${planter}`);
    expect(step(report, 'backfill_subagent_contexts')).toMatchObject({ status: 'failed' });
    expect(step(report, 'backfill_subagent_contexts')?.error).toMatch(/^not run: .*which the package did not create/);
    expect(logger.lines.map((l) => l.fields.step)).toEqual(['ensure_json_helpers', 'backfill_subagent_contexts']);
    expect(await plantedCalls()).toBe(0);
    expect(await helperOwners()).toEqual([{ schema: 'public', owner: planter }]); // never replaced (it would keep its owner)
    expect(await db.query('SELECT key FROM kandev_meta WHERE key LIKE $1', ['%capture_since'])).toEqual([]);

    // The operator removes it: the next boot installs the package's own and activates.
    await db.exec('DROP FUNCTION public.subagent_context_is_json(text)');
    const healed = await db.store({ clock: steppingClock(T0 + 2_000_000_000n) }).runMigrations();
    expect(healed.ok).toBe(true);
    expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
    expect((await db.store().checkHealth()).shortfall).toBe(0);
    expect(await plantedCalls()).toBe(0);
  });

  it('planted in a schema earlier on search_path after activation: migrate and health refuse it and never run it', async () => {
    expect((await db.store({ clock: steppingClock(T0 + 1_000_000_000n) }).runMigrations()).ok).toBe(true);
    await plant('planted');
    // A message the backfill did not see: a blinded shortfall check would call it healthy.
    await insertSubagentMessage(db, { id: 'm-lost', sessionId: 's1', toolCallId: 'tc-lost', createdAt: hostTimestamp(db, T0 + 5_000_000_000n) });

    const url = new URL(db.location);
    url.searchParams.set('options', '-c search_path=planted,public');
    const shadowed: pg.Pool = poolFor({ connectionString: url.toString(), max: 2 });
    try {
      const logger = recordingLogger();
      const store = createPostgresStore(shadowed, { clock: steppingClock(T0 + 9_000_000_000n), logger });
      const report = await store.runMigrations();
      expect(step(report, 'ensure_json_helpers')).toMatchObject({ status: 'failed' });
      expect(step(report, 'ensure_json_helpers')?.error).toContain(`planted.subagent_context_is_json(text) owned by role ${planter}`);

      const health = store.checkHealth();
      await expect(health).rejects.toBeInstanceOf(HealthCheckError);
      await expect(health).rejects.toMatchObject({ code: 'untrusted_object', message: expect.stringContaining('planted.subagent_context_is_json') });
      expect(logger.lines.at(-1)?.msg).toMatch(/^subagent-context health: the health comparison was not run/);
      expect(await plantedCalls()).toBe(0);
      // The package's own, in its schema, is untouched, and the live path needs no helper.
      const [{ operator }] = await db.query<{ operator: string }>('SELECT current_user AS operator');
      expect(await helperOwners()).toEqual([
        { schema: 'planted', owner: planter },
        { schema: 'public', owner: operator },
      ]);
    } finally {
      await shadowed.end();
    }
    // On the operator's own path the package's function answers, and sees the lost row.
    expect((await db.store().checkHealth()).shortfall).toBe(1);
    expect(await plantedCalls()).toBe(0);
  });

  it("the package's helper lives in the table's schema with its search_path pinned", async () => {
    expect((await db.store({ clock: steppingClock(T0 + 1_000_000_000n) }).runMigrations()).ok).toBe(true);
    const [helper] = await db.query<{ schema: string; config: string[]; definer: boolean }>(
      `SELECT p.pronamespace::regnamespace::text AS schema, p.proconfig AS config, p.prosecdef AS definer
         FROM pg_proc AS p WHERE p.oid = 'public.subagent_context_is_json(text)'::regprocedure`,
    );
    expect(helper).toEqual({ schema: 'public', config: ['search_path=pg_catalog, pg_temp'], definer: false });
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
