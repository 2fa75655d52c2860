// EXPLAIN evidence that the importer's progress read (queries/*/import/import_read_progress_of.sql)
// is primary-key lookups of the keys it is given, never a scan of the source's rows: on a store
// holding 20,000 progress rows, SQLite searches the (source, transcript) key; PostgreSQL, with
// statistics, under custom and generic plans, scans no part of the table sequentially. And the
// read returns exactly the rows of the keys asked for.
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importReadProgressOf as postgresRead } from '../generated/postgres/import/index.js';
import { importReadProgressOf as sqliteRead } from '../generated/sqlite/import/index.js';
import { explainGenerated, seqScansOf } from './helpers/postgres-explain.js';
import { byDialect } from './helpers/by-dialect.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const ROWS = 20_000;
const TABLE = 'subagent_context_import_progress';
const keys = ['t-00042', 't-12345', 't-19999', 'never-imported'];

describeBothDialects('import: the progress read is primary-key lookups', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await db.exec("INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('s', 't', '2026-12-04 00:00:00', '2026-12-04 00:00:00')");
    await db.exec(
      byDialect(dialect, {
        sqlite: `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS - 1})
                 INSERT INTO ${TABLE} (source, transcript, task_session_id, byte_offset, lines, malformed_lines, updated_at)
                 SELECT 'claude-code', printf('t-%05d', i), 's', i, 1, 0, '2026-12-04 00:00:00' FROM n`,
        postgres: `INSERT INTO ${TABLE} (source, transcript, task_session_id, byte_offset, lines, malformed_lines, updated_at)
                   SELECT 'claude-code', 't-' || lpad(i::text, 5, '0'), 's', i, 1, 0, '2026-12-04 00:00:00' FROM generate_series(0, ${ROWS - 1}) AS i;
                   ANALYZE ${TABLE}`,
      }),
    );
  });
  afterAll(async () => db.close());

  it('returns the rows of the keys asked for, and none for a key never imported', async () => {
    const rows = await byDialect(dialect, {
      sqlite: async () => sqliteRead.many({ source: 'claude-code', transcripts: JSON.stringify(keys) }, db.sqlite!),
      postgres: async () => postgresRead.many({ source: 'claude-code', transcripts: keys }, db.pool!),
    })();
    expect(rows.map((r) => [r.transcript, Number(r.byteOffset)]).sort()).toEqual([
      ['t-00042', 42],
      ['t-12345', 12345],
      ['t-19999', 19999],
    ]);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('SQLite: searches the primary key by (source, transcript); scans no table', () => {
      const plan = (db.sqlite as Database.Database)
        .prepare(`EXPLAIN QUERY PLAN ${sqliteRead.sql}`)
        .all({ source: 'claude-code', transcripts: JSON.stringify(keys) })
        .map((r) => (r as { detail: string }).detail);
      expect(plan.join(' | ')).toMatch(/SEARCH p USING INDEX sqlite_autoindex_subagent_context_import_progress_1 \(source=\? AND transcript=\?\)/);
      expect(plan.filter((d) => /^SCAN p\b/.test(d))).toEqual([]);
    });
  } else {
    it('PostgreSQL: an index scan of the primary key, custom and generic plans; no sequential scan', async () => {
      for (const generic of [false, true]) {
        const nodes = await explainGenerated(db.pool!, postgresRead, { source: 'claude-code', transcripts: keys }, generic);
        expect(seqScansOf(nodes, TABLE), `generic=${generic}`).toEqual([]);
        // The key's both columns in the index condition: a lookup per key, not a range over the source.
        const scan = nodes.find((n) => n['Relation Name'] === TABLE && /Index/.test(n['Node Type']));
        expect(JSON.stringify(scan), `generic=${generic}: ${JSON.stringify(nodes)}`).toMatch(/"Index Cond":"\(\(source = .*transcript = ANY/);
      }
    });
  }
});
