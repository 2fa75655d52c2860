// The JSON validity test the backfill and health statements ask (queries/postgres/fragments/
// valid_jsonb.sql). On PostgreSQL 16 and later it is the built-in pg_input_is_valid, and the
// migration creates no function; on PostgreSQL 15 it is the package's own function of that name
// in its own schema subagent_context, kept at its current definition (an older one is replaced;
// the previous footprint's, in the table's schema, is dropped unless a host object uses it).
// On every dialect and version a
// document nested deeper than 1,000 — SQLite's json_valid limit — reads as invalid, and one
// nested far deeper than PostgreSQL's stack never fails the backfill; a shallow document with
// more than 1,000 brackets is still read.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { packageSchema } from '../generated/postgres/index.js';
import { clientFor, databaseName, poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { applyFragment, loadFragments } from '../scripts/lib/codegen-fragments.js';
import { byDialect } from './helpers/by-dialect.js';
import { withPinnedSearchPath } from './helpers/pinned-search-path.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, insertSubagentMessage, subagentMetadata } from './helpers/seed-host-rows.js';

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

  it('deeper than 1,000 reads as invalid (never an error); 1,000 deep, 1,500 shallow brackets and 600 more at 900 deep are read', async () => {
    const docs: [string, string][] = [
      ['tc-deep-stack', withExtra('tc-deep-stack', nested(200_000))],
      ['tc-deep-1001', withExtra('tc-deep-1001', nested(1_000))], // the metadata object adds one level
      ['tc-deep-1000', withExtra('tc-deep-1000', nested(999))],
      ['tc-many', withExtra('tc-many', `[${Array.from({ length: 1_500 }, (_, i) => `{"a":[${i}],"s":"]]]]"}`).join(',')}]`)],
      ['tc-strings', withExtra('tc-strings', JSON.stringify('['.repeat(5_000)))],
      // 903 deep, but a stretch of the brackets holds 300 more openers than the depth ever reaches
      // (PostgreSQL counts its brackets in stretches, and reads this one bracket by bracket).
      ['tc-wide-at-900', withExtra('tc-wide-at-900', `${'['.repeat(900)}${Array(300).fill('[]').join(',')}${']'.repeat(900)}`)],
      // Invalid: a string that never closes, after 1,001 openers. PostgreSQL's depth test matched
      // back from each of its 160,000 quotes to the end of the text: about 100 s, past this test's limit.
      ['tc-unclosed', withExtra('tc-unclosed', `${'{'.repeat(1_001)}"${'\\"'.repeat(160_000)}`)],
    ];
    for (const [i, [, metadata]] of docs.entries()) {
      await insertMessage(db, { id: `m${i}`, sessionId: 's1', metadata, createdAt: hostTimestamp(db, T0 + BigInt(i) * 1_000n) });
    }
    const report = await db.store({ clock: steppingClock(T0 + 10_000_000_000n) }).runMigrations();
    expect(report.ok).toBe(true);
    const rows = await db.query<{ t: string }>('SELECT tool_call_id AS t FROM task_session_subagents ORDER BY 1');
    expect(rows.map((r) => r.t)).toEqual(['tc-deep-1000', 'tc-many', 'tc-strings', 'tc-wide-at-900']);
    expect((await db.store().checkHealth()).shortfall).toBe(0);
  });

  it('the validity test itself, as SQLite reads each document: one string holding 1,001 brackets is valid', async () => {
    const docs = [
      JSON.stringify('['.repeat(1_001)), // one JSON string: valid, nothing nested
      `"${'['.repeat(1_001)}`, // a string that never closes
      `[${JSON.stringify('{'.repeat(1_001))},${nested(998)}]`, // 999 deep beside a string of openers
      `[${JSON.stringify('{'.repeat(1_001))},${nested(1_000)}]`, // 1,001 deep
    ];
    const valid = await byDialect(dialect, {
      sqlite: async () => docs.map((doc) => (db.sqlite!.prepare('SELECT json_valid(?) AS v').get(doc) as { v: number }).v === 1),
      postgres: async () => {
        await db.store().runMigrations(); // PostgreSQL 15: the package's own pg_input_is_valid
        const check = applyFragment(loadFragments(process.cwd(), 'postgres').get('valid_jsonb')!, '$1::text');
        return withPinnedSearchPath(db.pool!, async (client) => {
          const out: boolean[] = [];
          for (const doc of docs) out.push((await client.query<{ v: boolean }>(`SELECT ${check} AS v`, [doc])).rows[0].v);
          return out;
        });
      },
    })();
    expect(valid).toEqual([true, false, true, false]);
  });
});

// A host whose metadata column has a nondeterministic collation (here an ICU one that ignores
// punctuation). PostgreSQL 18 lets strpos() and replace() run under it; the depth test's regular
// expression raises under it, so valid_jsonb.sql reads the text as "C" there (tc-many, 1,500
// brackets, takes that path: without it the backfill fails), and in the bracket count, where '['
// would otherwise match quotes and commas too and send tc-shallow down the slower path (its
// outcome is the same, so only the first is pinned here). Before 18 the prefilter's strpos()
// itself refuses the collation: that is asserted, not skipped.
describe('a metadata column with a nondeterministic collation [postgres]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('postgres');
    await insertSession(db, 's1', 'task-1');
    await db.exec(`CREATE COLLATION ignore_punctuation (provider = icu, locale = 'und-u-ka-shifted', deterministic = false)`);
    await db.exec('ALTER TABLE task_session_messages ALTER COLUMN metadata TYPE text COLLATE ignore_punctuation');
  });
  afterEach(async () => db.close());

  it('18 and later: the count and the depth are read bytewise, and the backfill writes what it writes under "C"; before 18: the prefilter refuses', async () => {
    const shallow = `[${Array.from({ length: 300 }, (_, i) => `{"a":"x, y","n":${i}}`).join(',')}]`; // 301 brackets, many quotes and commas
    const docs: [string, string][] = [
      ['tc-shallow', withExtra('tc-shallow', shallow)],
      ['tc-deep-1001', withExtra('tc-deep-1001', nested(1_000))],
      ['tc-many', withExtra('tc-many', `[${Array.from({ length: 1_500 }, (_, i) => `{"a":[${i}],"s":"]]]]"}`).join(',')}]`)],
    ];
    for (const [i, [, metadata]] of docs.entries()) {
      await insertMessage(db, { id: `m${i}`, sessionId: 's1', metadata, createdAt: hostTimestamp(db, T0 + BigInt(i) * 1_000n) });
    }
    const version = Number((await db.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`))[0].v);
    const report = await db.store({ clock: steppingClock(T0 + 10_000_000_000n) }).runMigrations();
    const rows = await db.query<{ t: string }>('SELECT tool_call_id AS t FROM task_session_subagents ORDER BY 1');
    if (version >= 180_000) {
      expect(report.ok).toBe(true);
      expect(rows.map((r) => r.t)).toEqual(['tc-many', 'tc-shallow']);
    } else {
      expect(report.ok).toBe(false);
      expect(JSON.stringify(report.steps)).toMatch(/nondeterministic collations are not supported/);
      expect(rows).toEqual([]);
    }
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

  /** Every pg_input_is_valid outside pg_catalog, with its schema and comment. */
  const helpers = () =>
    db.query<{ schema: string; comment: string | null }>(
      `SELECT p.pronamespace::regnamespace::text AS schema, obj_description(p.oid, 'pg_proc') AS comment
         FROM pg_proc AS p WHERE p.proname = 'pg_input_is_valid' AND p.pronamespace <> 'pg_catalog'::regnamespace ORDER BY 1`,
    );
  const ensureStep = (report: { steps: { name: string; status: string }[] }) => report.steps.find((s) => s.name === 'ensure_json_helpers')?.status;
  const CURRENT = 'subagent-context json helper v5 (PostgreSQL 15)';

  it('16 and later: nothing is created, the built-in answers; 15: its own schema, an older definition replaced, a document deeper than the stack survived', async () => {
    if (version >= 160000) {
      const report = await db.store({ clock: steppingClock() }).runMigrations();
      expect(report.ok).toBe(true);
      expect(ensureStep(report)).toBe('skipped');
      expect(await helpers()).toEqual([]);
      expect(await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = 'subagent_context'`)).toEqual([]);
      return;
    }
    // PostgreSQL 15: an earlier definition of the package's own (no exception block: it raises
    // on a deep document) in its schema, and the operator's own function of that name in public.
    await db.exec(`CREATE SCHEMA subagent_context;
                   CREATE FUNCTION subagent_context.pg_input_is_valid(doc text, type text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
                   AS $$ SELECT doc::jsonb IS NOT NULL $$;
                   CREATE FUNCTION public.pg_input_is_valid(doc text, type text) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$`);
    const deep = nested(200_000);
    await expect(db.query(`SELECT subagent_context.pg_input_is_valid($1, 'jsonb') AS ok`, [deep])).rejects.toThrow(/stack depth/);
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(ensureStep(report)).toBe('applied');
    // Replaced in its schema; the operator's own in public is not the package's: left alone.
    expect(await helpers()).toEqual([
      { schema: 'public', comment: null },
      { schema: 'subagent_context', comment: CURRENT },
    ]);
    expect(await db.query(`SELECT subagent_context.pg_input_is_valid($1, 'jsonb') AS ok`, [deep])).toEqual([{ ok: false }]);
    expect(
      await db.query(`SELECT subagent_context.pg_input_is_valid('{"a":1}', 'jsonb') AS ok, subagent_context.pg_input_is_valid('{', 'jsonb') AS bad`),
    ).toEqual([{ ok: true, bad: false }]);
    const again = await db.store({ clock: steppingClock() }).runMigrations();
    expect(ensureStep(again)).toBe('skipped');
  });

  /**
   * The previous footprint on 15 (0.3 before issue 30 item 7): the package's helper, exactly
   * this body, in the schema of task_session_subagents, on a store migrated and activated.
   */
  async function previousFootprint(): Promise<void> {
    const body = /AS \$fn\$([\s\S]*?)\$fn\$/.exec(readFileSync('schema/postgres/004_json_helpers.sql', 'utf8'))![1];
    for (const script of packageSchema.filter((x) => x.name !== 'json_helpers')) await db.exec(script.sql);
    await insertSession(db, 's1', 'task-1');
    await db.exec(`CREATE FUNCTION public.pg_input_is_valid(doc text, type text) RETURNS boolean
                   LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL RESTRICTED SET search_path = pg_catalog, pg_temp
                   AS $fn$${body}$fn$;
                   COMMENT ON FUNCTION public.pg_input_is_valid(text, text) IS 'subagent-context json helper v4 (PostgreSQL 15)'`);
    // The very function the probe recognised then (and recognises in subagent_context now).
    const probeMd5 = /md5\(h\.prosrc\) = '([0-9a-f]{32})'/.exec(readFileSync('queries/postgres/observe_json_helper.sql', 'utf8'))![1];
    expect(await db.query(`SELECT md5(prosrc) AS m FROM pg_proc WHERE oid = 'public.pg_input_is_valid(text, text)'::regprocedure`)).toEqual([{ m: probeMd5 }]);
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
  }

  it('upgrade from the previous footprint: 15 moves the helper to subagent_context and drops its own old one, health goes on; 16+ changes nothing', async () => {
    if (version >= 160000) {
      // Nothing was created there before either: the step stays skipped, nothing is created.
      const report = await db.store({ clock: steppingClock() }).runMigrations();
      expect(ensureStep(report)).toBe('skipped');
      expect(await helpers()).toEqual([]);
      return;
    }
    await previousFootprint();
    await insertSubagentMessage(db, { id: 'm-lost', sessionId: 's1', toolCallId: 'tc-lost', createdAt: hostTimestamp(db, T0 + 5_000_000_000n) });
    const report = await db.store({ clock: steppingClock(T0 + 9_000_000_000n) }).runMigrations();
    expect(report.ok).toBe(true);
    expect(ensureStep(report)).toBe('applied');
    expect(report.steps.find((s) => s.name === 'backfill_subagent_contexts')?.status).toBe('skipped'); // activated before
    expect(await helpers()).toEqual([{ schema: 'subagent_context', comment: CURRENT }]);
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
  });

  it('an operator without CREATE on the database: on 15 the step says so until a DBA creates the schema for it; on 16+ nothing is needed', async () => {
    const role = `sc_noschema_${process.pid}_${Date.now().toString(36)}`;
    const admin = clientFor(inject('pgUrl'));
    await admin.connect();
    let pool: pg.Pool | undefined;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
      await db.exec(`REVOKE CREATE ON DATABASE ${databaseName(db.location)} FROM PUBLIC;
                     GRANT CREATE, USAGE ON SCHEMA public TO ${role};
                     GRANT ALL ON task_sessions, task_session_messages TO ${role}`);
      const url = new URL(db.location);
      url.username = role;
      url.password = 'pw';
      pool = poolFor({ connectionString: url.toString(), max: 2 });
      const report = await createPostgresStore(pool, { clock: steppingClock() }).runMigrations();
      if (version >= 160000) {
        expect(report.ok, JSON.stringify(report.steps.filter((x) => x.status === 'failed'))).toBe(true);
        expect(ensureStep(report)).toBe('skipped');
        return;
      }
      expect(report.ok).toBe(false);
      expect(report.steps.find((s) => s.name === 'ensure_json_helpers')?.error).toMatch(
        new RegExp(`^PostgreSQL 15: the JSON helper needs the schema subagent_context, and role ${role} may not create a schema in database`),
      );
      // A DBA creates it for the operator: the next run goes on.
      await db.exec(`CREATE SCHEMA subagent_context AUTHORIZATION ${role}`);
      const again = await createPostgresStore(pool, { clock: steppingClock() }).runMigrations();
      expect(again.ok, JSON.stringify(again.steps.filter((x) => x.status === 'failed'))).toBe(true);
      expect(ensureStep(again)).toBe('applied');
      expect(await helpers()).toEqual([{ schema: 'subagent_context', comment: CURRENT }]);
    } finally {
      await pool?.end();
      await db.exec(`DROP OWNED BY ${role} CASCADE`);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.end();
    }
  });

  it('upgrade on 15 where a host view uses the old helper: the old one is left (no longer called), the new one created', async () => {
    if (version >= 160000) return void expect(await helpers()).toEqual([]); // nothing to upgrade on 16+
    await previousFootprint();
    await db.exec(`CREATE VIEW host_valid AS SELECT public.pg_input_is_valid('{}', 'jsonb') AS ok`);
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(ensureStep(report)).toBe('applied');
    expect(await helpers()).toEqual([
      { schema: 'public', comment: 'subagent-context json helper v4 (PostgreSQL 15)' },
      { schema: 'subagent_context', comment: CURRENT },
    ]);
    expect(await db.query('SELECT ok FROM host_valid')).toEqual([{ ok: true }]);
  });
});
