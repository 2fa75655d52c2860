// The transaction helpers the proxy's writer goes through (src/proxy/*-proxy-database.ts): one
// transaction per batch whose body awaits, with a savepoint per step that may fail. PostgreSQL:
// withTransaction / withSavepoint (src/postgres/transaction.ts); SQLite: withAsyncTransaction /
// withAsyncSavepoint (src/sqlite/transaction.ts), which the proxy used to spell out as raw
// BEGIN IMMEDIATE … COMMIT. Both dialects, the same behaviour: a body that awaits commits as
// one; a failing savepoint is undone alone and the transaction goes on; a failing body commits
// nothing. (SQLite alone: test/sqlite-transactions.test.ts.)
import { afterEach, beforeEach, expect, it } from 'vitest';
import { withSavepoint, withTransaction } from '../src/postgres/transaction.js';
import { withAsyncSavepoint, withAsyncTransaction } from '../src/sqlite/transaction.js';
import { byDialect } from './helpers/by-dialect.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

interface Scope {
  run(sql: string): Promise<void>;
  savepoint(fn: () => Promise<void>): Promise<void>;
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describeBothDialects('async transaction helpers (the proxy writer)', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await db.exec('CREATE TABLE scratch (v INTEGER)');
  });
  afterEach(async () => db.close());

  const transaction = <T>(fn: (scope: Scope) => Promise<T>): Promise<T> =>
    byDialect(dialect, {
      sqlite: () => {
        const conn = db.sqlite!;
        const run = async (sql: string) => void conn.exec(sql);
        return withAsyncTransaction(conn, () => fn({ run, savepoint: (body) => withAsyncSavepoint(conn, 'step', body) }));
      },
      postgres: () =>
        withTransaction(db.pool!, (client) => {
          const run = async (sql: string) => void (await client.query(sql));
          return fn({ run, savepoint: (body) => withSavepoint(client, 'step', body) });
        }),
    })();
  const values = async () => (await db.query<{ v: number }>('SELECT v FROM scratch ORDER BY v')).map((r) => Number(r.v));

  it('a body that awaits between its statements commits them as one; a failing savepoint is undone alone', async () => {
    const result = await transaction(async (scope) => {
      await scope.run('INSERT INTO scratch VALUES (1)');
      await tick();
      await expect(
        scope.savepoint(async () => {
          await scope.run('INSERT INTO scratch VALUES (2)');
          await tick();
          throw new Error('this step fails');
        }),
      ).rejects.toThrow('this step fails');
      await scope.savepoint(() => scope.run('INSERT INTO scratch VALUES (3)'));
      return 'done';
    });
    expect(result).toBe('done');
    expect(await values()).toEqual([1, 3]);
  });

  it('a body that fails after awaiting commits nothing, and the connection is usable after', async () => {
    await expect(
      transaction(async (scope) => {
        await scope.run('INSERT INTO scratch VALUES (1)');
        await tick();
        throw new Error('the batch fails');
      }),
    ).rejects.toThrow('the batch fails');
    expect(await values()).toEqual([]);
    await transaction((scope) => scope.run('INSERT INTO scratch VALUES (4)'));
    expect(await values()).toEqual([4]);
  });
});
