// A host whose tables live in a schema other than `public`, reached through search_path (issue
// 11, item 5; DESIGN §8 "Objects resolve through the connection's search_path"). The host's
// tables are in `host_app`, the connection says `options=-c search_path=host_app`, and `public`
// holds same-named decoy tables the package must never read: runMigrations, recordFrame(s), the
// lists and checkHealth all work there, and nothing the package creates lands in public.
// PostgreSQL only: SQLite has no schemas in this sense (an ATTACHed database is named in each
// statement, never found through a path), so the setting does not exist there (the "both
// dialects where the setting exists" rule).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACTIVATION_KEYS, createPostgresStore, type SubagentContextStore } from '../src/index.js';
import { formatMicros, parseInstant } from '../src/instant.js';
import { steppingClock } from './helpers/clock.js';
import { clientFor, poolFor } from '../scripts/lib/postgres-database.js';
import { subagentMetadata } from './helpers/seed-host-rows.js';
import { SECOND } from './helpers/host-timestamp.js';

const ns = (iso: string) => parseInstant(iso)!;
const HOST_DDL = readFileSync('schema/host/postgres/001_host_tables.sql', 'utf8');

describe('host tables in a non-public schema through search_path [postgres]', () => {
  const name = `t_${process.pid}_${Date.now().toString(36)}_schema`;
  const server = inject('pgUrl');
  let admin: pg.Client; // default search_path ("$user", public), on the test database
  let pool: pg.Pool; // the host's pool: search_path=host_app
  let store: SubagentContextStore;
  const clock = steppingClock(ns('2026-07-01T00:00:00Z'), SECOND);

  const hostQuery = (sql: string, params: unknown[] = []) => pool.query(sql, params);
  const insertMessage = (id: string, sessionId: string, toolCallId: string, atNs: bigint) =>
    hostQuery(`INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES ($1, $2, 'task-1', $3, $4)`, [
      id,
      sessionId,
      subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { model: 'm' } }),
      formatMicros(atNs),
    ]);

  beforeAll(async () => {
    const bootstrap = clientFor(server);
    await bootstrap.connect();
    await bootstrap.query(`CREATE DATABASE ${name}`);
    await bootstrap.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    admin = clientFor(url.toString());
    await admin.connect();
    await admin.query('CREATE SCHEMA host_app');
    // Decoys in public, with a subagent message of their own: never read by the package.
    await admin.query(HOST_DDL);
    await admin.query(`INSERT INTO public.task_sessions (id, task_id, created_at, updated_at) VALUES ('s1', 'task-1', '2026-01-01', '2026-01-01')`);
    await admin.query(
      `INSERT INTO public.task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES ('decoy', 's1', 'task-1', $1, '2026-01-02')`,
      [subagentMetadata({ toolCallId: 'tc-decoy', subagent: {} })],
    );

    url.searchParams.set('options', '-c search_path=host_app');
    pool = poolFor({ connectionString: url.toString(), max: 4 });
    await hostQuery(HOST_DDL); // unqualified: lands in host_app, as the host's own DDL would
    await hostQuery(`INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('s1', 'task-1', '2026-01-01', '2026-01-01')`);
    await insertMessage('m-history', 's1', 'tc-history', ns('2026-03-01T00:00:00Z'));
    store = createPostgresStore(pool, { clock });
  });

  afterAll(async () => {
    await pool?.end();
    await admin?.end();
    const bootstrap = clientFor(server);
    await bootstrap.connect();
    await bootstrap.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await bootstrap.end();
  });

  it('the connection resolves unqualified names in host_app', async () => {
    const { rows } = await hostQuery("SELECT current_schema() AS schema, current_setting('search_path') AS path");
    expect(rows[0]).toEqual({ schema: 'host_app', path: 'host_app' });
  });

  it('runMigrations creates everything in host_app and backfills host_app messages only', async () => {
    const report = await store.runMigrations();
    expect(report.ok).toBe(true);
    expect(report.steps.every((s) => s.status !== 'failed')).toBe(true);
    const pg15 = Number((await admin.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`)).rows[0].v) < 160000;

    const objects = await admin.query<{ schema: string; name: string; kind: string }>(`
      SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS kind FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
       WHERE n.nspname IN ('public', 'host_app') AND c.relkind IN ('r', 'i', 'S', 'v', 'm', 'p')
      UNION ALL
      SELECT n.nspname, p.proname, 'f' FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace WHERE n.nspname IN ('public', 'host_app', 'subagent_context')`);
    const inSchema = (schema: string) =>
      objects.rows
        .filter((o) => o.schema === schema)
        .map((o) => o.name)
        .sort();
    // public holds the decoy host tables and their indexes, nothing else.
    expect(inSchema('public')).toEqual([
      'idx_messages_created_at',
      'idx_messages_session_created',
      'task_session_messages',
      'task_session_messages_pkey',
      'task_sessions',
      'task_sessions_pkey',
    ]);
    expect(inSchema('host_app')).toEqual(
      expect.arrayContaining([
        'kandev_meta',
        'task_session_subagents',
        'idx_subagents_session_id',
        'idx_subagents_task_id',
        'idx_subagents_turn_id',
        'idx_subagents_observed_at',
      ]),
    );
    // PostgreSQL 15's JSON validity test, the package's own, in the package's schema; 16 and later use the built-in.
    expect(inSchema('host_app')).not.toContain('pg_input_is_valid');
    expect(inSchema('subagent_context')).toEqual(pg15 ? ['pg_input_is_valid'] : []);

    const keys = await hostQuery('SELECT key FROM kandev_meta ORDER BY key');
    expect(keys.rows.map((k) => k.key)).toEqual(Object.values(ACTIVATION_KEYS).sort());
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.source])).toEqual([['tc-history', 'backfill']]); // never 'tc-decoy'
  });

  it('recordFrame, recordFrames, both lists and checkHealth work there', async () => {
    await insertMessage('m-live-1', 's1', 'tc-live-1', clock());
    expect(
      await store.recordFrame({
        sessionId: 's1',
        taskId: 'task-1',
        turnId: 'turn-1',
        executionId: 'e-1',
        toolCallId: 'tc-live-1',
        toolStatus: 'completed',
        payload: { model: 'm' },
      }),
    ).toBe('persisted');
    await insertMessage('m-live-2', 's1', 'tc-live-2', clock());
    expect(
      await store.recordFrames([{ sessionId: 's1', taskId: 'task-1', turnId: 'turn-1', executionId: 'e-1', toolCallId: 'tc-live-2', payload: {} }]),
    ).toEqual(['persisted']);

    expect((await store.listByTurn('s1', 'turn-1')).map((r) => r.tool_call_id)).toEqual(['tc-live-1', 'tc-live-2']);
    expect(await store.checkHealth()).toMatchObject({ state: 'activated', shortfall: 0, excess: 0, verdict: 'healthy' });

    // A real shortfall in host_app is seen (a decoy message in public, after activation, is not).
    await admin.query(
      `INSERT INTO public.task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES ('decoy-late', 's1', 'task-1', $1, '2027-01-01')`,
      [subagentMetadata({ toolCallId: 'tc-decoy-late', subagent: {} })],
    );
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0 });
    await insertMessage('m-missed', 's1', 'tc-missed', clock());
    expect(await store.checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    expect(store.counters()).toMatchObject({ persisted: 2, failed: 0 });
  });
});
