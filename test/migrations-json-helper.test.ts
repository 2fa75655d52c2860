// PostgreSQL only (SQLite has json_valid built in, so the object does not exist there): the
// package's subagent_context_is_json(text) is kept at its current definition. An older one —
// here the first release's PARALLEL SAFE function, whose pg_input_is_valid() raised on a
// document nested deeper than the stack — is replaced by the migration, and the replacement
// answers false for that document instead of raising.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

describe('json helper definition [postgres]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('postgres');
  });
  afterEach(async () => db.close());

  it('replaces an older definition and then survives a document deeper than the stack', async () => {
    await db.exec(`CREATE FUNCTION subagent_context_is_json(doc text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
                   AS $$ SELECT doc IS NOT NULL AND doc::jsonb IS NOT NULL $$`);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    await expect(db.query('SELECT subagent_context_is_json($1) AS ok', [deep])).rejects.toThrow(/stack depth/);

    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.steps.find((s) => s.name === 'ensure_json_helpers')?.status).toBe('applied');
    const [{ version, parallel }] = await db.query<{ version: string; parallel: string }>(
      `SELECT obj_description('subagent_context_is_json(text)'::regprocedure, 'pg_proc') AS version, p.proparallel AS parallel
         FROM pg_proc AS p WHERE p.oid = 'subagent_context_is_json(text)'::regprocedure`,
    );
    expect(version).toBe('subagent-context json helper v3');
    expect(parallel).toBe('r');
    expect(await db.query('SELECT subagent_context_is_json($1) AS ok', [deep])).toEqual([{ ok: false }]);
    expect(await db.query(`SELECT subagent_context_is_json('{"a":1}') AS ok`)).toEqual([{ ok: true }]);

    const again = await db.store({ clock: steppingClock() }).runMigrations();
    expect(again.steps.find((s) => s.name === 'ensure_json_helpers')?.status).toBe('skipped');
  });
});
