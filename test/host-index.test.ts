// store.ensureHostIndex() (docs/host-index.md): the optional partial index on the host's
// messages. Both dialects: created once, then present; the health check answers exactly as
// without it while its anti-joins read the window through it; the backfill writes the same rows
// over it; its predicate is the statements' prefilter term verbatim (else no planner would use
// it); a same-named index of another definition, a database without messages and (SQLite) a
// call inside the host's transaction are refused with a HostIndexError, nothing changed;
// (PostgreSQL) an unfinished CONCURRENTLY build is dropped and built again. And the CLI.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import * as sqliteQueries from '../generated/sqlite/index.js';
import { HostIndexError } from '../src/index.js';
import { HOST_INDEX_NAME } from '../src/host-index/host-index.js';
import { postgresWindow } from '../src/postgres/health.js';
import { sqliteWindow } from '../src/sqlite/health.js';
import { byDialect } from './helpers/by-dialect.js';
import { assertBuilt, databaseArgs, runCliBinary } from './helpers/cli.js';
import { lastPercentSinceNs, seedHealthMessages, seedHealthStore } from './helpers/health-store.js';
import { explainGenerated } from './helpers/postgres-explain.js';
import { withoutId } from './helpers/backfill-helpers.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const INDEX = HOST_INDEX_NAME;
const MESSAGES = 100_000;
const SINCE_NS = lastPercentSinceNs(MESSAGES);
const ANTI_JOINS = ['countShortfallSinceCapture', 'countExcessSinceCapture'] as const;

/** The index names the plan of one anti-join reads task_session_messages through. */
async function messageIndexes(db: TestDb, name: (typeof ANTI_JOINS)[number]): Promise<string[]> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const plan = db
      .sqlite!.prepare(`EXPLAIN QUERY PLAN ${sqliteQueries[name].sql}`)
      .all(sqliteWindow(SINCE_NS))
      .map((r) => (r as { detail: string }).detail);
    return plan.flatMap((d) => /^SEARCH (?:m|msg) USING (?:COVERING )?INDEX (\w+)/.exec(d)?.[1] ?? []);
  }
  // Every index scan, plain or bitmap, names its index; the store's messages have two of their own.
  const nodes = await explainGenerated(db.pool!, postgresQueries[name], postgresWindow(SINCE_NS), false);
  return nodes.flatMap((n) => (typeof n['Index Name'] === 'string' && n['Index Name'].startsWith('idx_messages_') ? [n['Index Name']] : []));
}

async function indexDefinition(db: TestDb): Promise<string | null> {
  const rows = await db.query<{ d: string }>(
    byDialect(db.dialect, {
      sqlite: `SELECT sql AS d FROM sqlite_schema WHERE type = 'index' AND name = '${INDEX}'`,
      postgres: `SELECT pg_get_indexdef(to_regclass('${INDEX}')) AS d WHERE to_regclass('${INDEX}') IS NOT NULL`,
    }),
  );
  return rows[0]?.d ?? null;
}

describeBothDialects('host index', (dialect) => {
  describe('on a 100k-message store, window in the last 1% (100 subagents, one missed)', () => {
    let db: TestDb;
    beforeAll(async () => {
      db = await openTestDb(dialect, 'package');
      await seedHealthStore(db, MESSAGES);
    });
    afterAll(async () => db.close());

    it('is created once, then present; the health check answers the same, its anti-joins reading the window through it', async () => {
      const store = db.store();
      const without = await store.checkHealth();
      expect(without).toMatchObject({ shortfall: 1, excess: 0, collisions: 0, verdict: 'shortfall' });
      for (const name of ANTI_JOINS) expect(await messageIndexes(db, name), name).not.toContain(INDEX);

      expect(await store.ensureHostIndex()).toMatchObject({ index: INDEX, outcome: 'created', ms: expect.any(Number) });
      expect(await store.ensureHostIndex()).toMatchObject({ index: INDEX, outcome: 'present' });
      expect(await store.checkHealth()).toEqual(without);
      for (const name of ANTI_JOINS) expect(await messageIndexes(db, name), name).toEqual([INDEX]);
    });
  });

  it("its predicate is the statements' prefilter term, verbatim", async () => {
    const fragment = readFileSync(`queries/${dialect}/fragments/subagent_prefilter.sql`, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .trim();
    const term = fragment.replace(/\bx\b/g, 'metadata');
    const [script] = byDialect(dialect, { sqlite: sqliteQueries.hostIndexSchema, postgres: postgresQueries.hostIndexSchema });
    expect(script.sql).toContain(`WHERE ${term};`);
  });

  it('the backfill writes the same rows over it', async () => {
    const rows: unknown[] = [];
    for (const indexed of [false, true]) {
      const db = await openTestDb(dialect);
      try {
        await seedHealthMessages(db, 5_000);
        if (indexed) expect((await db.store().ensureHostIndex()).outcome).toBe('created');
        expect((await db.store().runMigrations()).ok).toBe(true);
        const all = await db.query<{ task_session_id: string }>('SELECT DISTINCT task_session_id FROM task_session_subagents ORDER BY 1');
        const read = [];
        for (const { task_session_id } of all) read.push(...withoutId(await db.store().listBySession(task_session_id)));
        expect(read).toHaveLength(500);
        rows.push(read);
      } finally {
        await db.close();
      }
    }
    expect(rows[1]).toEqual(rows[0]);
  });

  it('a same-named index of another definition is refused and left as it is', async () => {
    const db = await openTestDb(dialect, 'package');
    try {
      await db.exec(`CREATE INDEX ${INDEX} ON task_session_messages (task_id)`);
      const before = await indexDefinition(db);
      const err = await db
        .store()
        .ensureHostIndex()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HostIndexError);
      expect(err).toMatchObject({ code: 'foreign_index', message: expect.stringContaining('task_id') });
      expect(await indexDefinition(db)).toBe(before);
    } finally {
      await db.close();
    }
  });

  it('the CLI refuses a same-named index in one line, its definition quoted with controls escaped (exit 7)', async () => {
    assertBuilt();
    const db = await openTestDb(dialect);
    try {
      // A hostile definition: an ESC sequence (an OSC that would retitle the terminal) in a literal.
      const esc = byDialect(dialect, { sqlite: "char(27) || ']0;pwned' || char(7)", postgres: "E'\\x1b]0;pwned\\x07'" });
      const literal = (await db.query<{ v: string }>(`SELECT ${esc} AS v`))[0].v;
      await db.exec(`CREATE INDEX ${INDEX} ON task_session_messages (task_id) WHERE task_id <> '${literal}'`);
      const run = await runCliBinary(['host-index', ...databaseArgs(db)]);
      expect(run.code).toBe(7);
      expect(run.stderr).toMatch(/exists with another definition/);
      expect(run.stderr).not.toContain('\u001b');
      expect(run.stderr).toContain('\\x1b]0;pwned\\x07');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      await db.close();
    }
  });

  it('a database without the messages table is refused (missing_tables)', async () => {
    const db = await openTestDb(dialect);
    try {
      await db.exec('DROP TABLE task_session_messages');
      await expect(db.store().ensureHostIndex()).rejects.toMatchObject({ name: 'HostIndexError', code: 'missing_tables' });
    } finally {
      await db.close();
    }
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it("SQLite: inside the host's transaction it is refused (in_transaction), nothing built", async () => {
      const db = await openTestDb(dialect);
      try {
        db.sqlite!.exec('BEGIN');
        await expect(db.store().ensureHostIndex()).rejects.toMatchObject({ code: 'in_transaction' });
        db.sqlite!.exec('ROLLBACK');
        expect(await indexDefinition(db)).toBeNull();
      } finally {
        await db.close();
      }
    });
  } else {
    it('PostgreSQL: an unfinished CONCURRENTLY build (INVALID) is dropped and built again', async () => {
      const db = await openTestDb(dialect);
      try {
        expect((await db.store().ensureHostIndex()).outcome).toBe('created');
        // What a cancelled CREATE INDEX CONCURRENTLY leaves: the index, marked invalid.
        await db.exec(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${INDEX}'::regclass`);
        expect((await db.store().ensureHostIndex()).outcome).toBe('rebuilt');
        const [row] = await db.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = '${INDEX}'::regclass`);
        expect(row.valid).toBe(true);
      } finally {
        await db.close();
      }
    });
  }

  it('the CLI: `host-index` creates it, then says it is present', async () => {
    assertBuilt();
    const db = await openTestDb(dialect);
    try {
      const first = await runCliBinary(['host-index', ...databaseArgs(db)]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`${INDEX} created \\(\\d+ ms\\)`));
      const second = await runCliBinary(['host-index', ...databaseArgs(db), '--json']);
      expect(JSON.parse(second.stdout)).toMatchObject({ index: INDEX, outcome: 'present' });
    } finally {
      await db.close();
    }
  });
});
