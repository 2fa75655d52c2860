// The hot statements' naming and their fallback, made deterministic on ONE direct connection
// (a pool of 1): what a transaction-mode pooler does by chance — a Parse landing on a server
// connection that already holds the name (42P05), a Bind on one that lost it (26000) — is
// staged by preparing or deallocating the statement on that connection by hand. In each place
// a statement runs (autocommit, the store's own batch transaction, a host's transaction) the
// frame is retried unnamed and persisted, and the store stays unnamed from then on.
// PostgreSQL only: prepared statements are node-postgres's and the server's.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type SubagentContextStore, type SubagentFrame } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const UPSERT = /^subagent_context\.upsert_subagent_context\.[0-9a-f]{12}$/;
const BATCH = /^subagent_context\.upsert_subagent_contexts_batch\.[0-9a-f]{12}$/;

interface Prepared {
  name: string;
  statement: string;
}

/** A logger that keeps every line, INFO included. */
function fullLogger() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: object, msg: string) => void lines.push({ level, fields: fields as Record<string, unknown>, msg });
  return { lines, warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') };
}

describe('named statements and their fallback [postgres]', () => {
  let db: TestDb;
  let pools: pg.Pool[];
  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
    pools = [];
  });
  afterEach(async () => {
    for (const p of pools) await p.end();
    await db.close();
  });

  /** A pool of ONE connection: every statement, named or not, runs on the same server connection. */
  const onePool = () => {
    const pool = poolFor({ connectionString: db.location, max: 1 });
    pools.push(pool);
    return pool;
  };
  const prepared = async (pool: pg.Pool): Promise<Prepared[]> =>
    (await pool.query<Prepared>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')).rows;
  const rowCount = async () => Number((await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM task_session_subagents'))[0].n);
  const frames = (prefix: string, n: number): SubagentFrame[] => Array.from({ length: n }, (_, i) => frame({ toolCallId: `${prefix}_${i}` }));

  /** The package's two statements, as a store prepares them on a direct connection. */
  const packageStatements = async (): Promise<{ upsert: Prepared; batch: Prepared }> => {
    const pool = onePool();
    const store = createPostgresStore(pool, { clock: steppingClock() });
    expect(await store.recordFrame(frame({ toolCallId: 'learn' }))).toBe('persisted');
    expect(await store.recordFrames(frames('learn', 2))).toEqual(['persisted', 'persisted']);
    const list = await prepared(pool);
    await db.exec('TRUNCATE task_session_subagents');
    return { upsert: list.find((p) => UPSERT.test(p.name))!, batch: list.find((p) => BATCH.test(p.name))! };
  };

  /** Prepares `statement` under its name on the pool's one connection, behind node-postgres's back. */
  const prepareBehindTheDriver = (pool: pg.Pool, { name, statement }: Prepared) => pool.query(`PREPARE "${name}" AS ${statement}`);

  it('on a direct connection both statements run named, each name carrying the hash of its own text', async () => {
    const { upsert, batch } = await packageStatements();
    for (const p of [upsert, batch]) {
      expect(Buffer.byteLength(p.name)).toBeLessThanOrEqual(63); // PostgreSQL keeps 63 bytes of a name
      expect(p.name.endsWith(`.${createHash('sha256').update(p.statement).digest('hex').slice(0, 12)}`)).toBe(true);
    }
    expect(upsert.statement).toMatch(/^INSERT INTO task_session_subagents/);
    expect(batch.statement).toMatch(/jsonb_to_recordset/);
  });

  it('StoreOptions.namedStatements: false prepares nothing and writes the same', async () => {
    const pool = onePool();
    const store = createPostgresStore(pool, { clock: steppingClock(), namedStatements: false });
    expect(await store.recordFrame(frame({ toolCallId: 'a' }))).toBe('persisted');
    expect(await store.recordFrames(frames('b', 3))).toEqual(['persisted', 'persisted', 'persisted']);
    expect(await prepared(pool)).toEqual([]);
    expect(await rowCount()).toBe(4);
  });

  describe('a name already prepared on the server connection (42P05)', () => {
    const cases: { where: string; statement: 'upsert' | 'batch'; write(store: SubagentContextStore<pg.ClientBase>, pool: pg.Pool): Promise<unknown> }[] = [
      { where: 'recordFrame, autocommit', statement: 'upsert', write: (store) => store.recordFrame(frame({ toolCallId: 'x' })) },
      { where: "recordFrames, the store's transaction", statement: 'batch', write: (store) => store.recordFrames(frames('x', 3)) },
      {
        where: "recordFrame, a host's transaction",
        statement: 'upsert',
        write: async (store, pool) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const outcome = await store.recordFrame(frame({ toolCallId: 'x' }), { client });
            await client.query('COMMIT');
            return outcome;
          } finally {
            client.release();
          }
        },
      },
      {
        where: "recordFrames, a host's transaction",
        statement: 'batch',
        write: async (store, pool) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            const outcomes = await store.recordFrames(frames('x', 3), { client });
            await client.query('COMMIT');
            return outcomes;
          } finally {
            client.release();
          }
        },
      },
    ];
    for (const c of cases) {
      it(`${c.where}: retried unnamed and persisted; the store stays unnamed`, async () => {
        const statements = await packageStatements();
        const pool = onePool();
        await prepareBehindTheDriver(pool, statements[c.statement]);
        const logger = fullLogger();
        const store = createPostgresStore(pool, { clock: steppingClock(), logger });
        const outcome = await c.write(store, pool);
        expect([outcome].flat().every((o) => o === 'persisted')).toBe(true);
        expect(await rowCount()).toBe(c.statement === 'upsert' ? 1 : 3);
        expect(logger.lines.map((l) => [l.level, l.fields.code])).toEqual([['info', '42P05']]);
        // From then on nothing is prepared: at most the statement staged by hand exists (a
        // failed pool.query destroys its connection, and the staged statement with it).
        expect(await store.recordFrame(frame({ toolCallId: 'after' }))).toBe('persisted');
        expect(await store.recordFrames(frames('after', 2))).toEqual(['persisted', 'persisted']);
        expect((await prepared(pool)).filter((p) => p.name !== statements[c.statement].name)).toEqual([]);
        expect(store.counters()).toMatchObject({ failed: 0 });
      });
    }
  });

  describe('a prepared name the server connection lost (26000)', () => {
    for (const inHostTransaction of [false, true]) {
      it(`recordFrame${inHostTransaction ? " in a host's transaction" : ', autocommit'}: retried unnamed and persisted`, async () => {
        const pool = onePool();
        const logger = fullLogger();
        const store = createPostgresStore(pool, { clock: steppingClock(), logger });
        expect(await store.recordFrame(frame({ toolCallId: 'first' }))).toBe('persisted'); // named, parsed on the connection
        await pool.query('DEALLOCATE ALL'); // node-postgres still believes it is there
        let outcome: unknown;
        if (inHostTransaction) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            outcome = await store.recordFrame(frame({ toolCallId: 'second' }), { client });
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        } else {
          outcome = await store.recordFrame(frame({ toolCallId: 'second' }));
        }
        expect(outcome).toBe('persisted');
        expect(await rowCount()).toBe(2);
        expect(logger.lines.map((l) => [l.level, l.fields.code])).toEqual([['info', '26000']]);
        expect(await prepared(pool)).toEqual([]);
      });
    }
  });

  it('a real failure is not mistaken for a conflict: it fails the frame and the store stays named', async () => {
    const pool = onePool();
    const logger = fullLogger();
    const store = createPostgresStore(pool, { clock: steppingClock(), logger });
    expect(await store.recordFrame(frame({ sessionId: 'no-such-session', toolCallId: 'orphan' }))).toBe('failed'); // foreign key: reported as unknown_session
    expect(await store.recordFrame(frame({ toolCallId: 'fine' }))).toBe('persisted');
    expect(logger.lines.map((l) => [l.level, l.fields.code])).toEqual([['warn', 'unknown_session']]);
    expect((await prepared(pool)).map((p) => p.name)).toEqual([expect.stringMatching(UPSERT)]);
  });
});
