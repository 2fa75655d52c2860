// SQLite transactions go through better-sqlite3's db.transaction(fn) (src/sqlite/transaction.ts)
// and keep what the hand-written BEGIN/COMMIT guaranteed. SQLite only: these are properties of
// a connection shared with the host, which PostgreSQL's pool does not have (its host
// transactions are test/host-transactions.test.ts, on both dialects).
// - runMigrations() with the host's transaction open on the connection never runs inside it
//   (the migration lock is BEGIN IMMEDIATE of its own): its steps fail, nothing is created, the
//   host's transaction and its rows are untouched, and the next run after the host commits works;
// - a body that returns a promise is refused and rolled back, never committed half-done;
// - the write lock is taken up front: a second writer waiting on it fails the batch, counted,
//   and leaves no transaction open;
// - withAsyncTransaction (the proxy writer's, test/async-transactions.test.ts on both dialects)
//   is never a savepoint of a transaction already open, and rejects when SQLite ended its
//   transaction under it rather than committing the rest; with a LockWait it waits for the write
//   lock in slices, timers running between them, rejects SQLITE_BUSY once the time is up, and
//   restores the connection's busy timeout.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index.js';
import { inWriteScope, withAsyncTransaction, withImmediateTransaction } from '../src/sqlite/transaction.js';
import { steppingClock } from './helpers/clock.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

describe('sqlite transactions through better-sqlite3', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('sqlite', 'host');
  });
  afterEach(async () => db.close());

  const tableExists = (conn: Database.Database, name: string) =>
    conn.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { n: number };

  it("runMigrations() inside the host's open transaction: nothing runs in it, the host's rows stay, the next run applies", async () => {
    const conn = db.sqlite!;
    conn.exec('BEGIN IMMEDIATE');
    await insertSession(db, 's-host'); // the host's own write, inside its transaction
    const report = await createSqliteStore(conn).runMigrations();
    expect(report.ok).toBe(false);
    expect(report.steps.filter((s) => s.status === 'applied')).toEqual([]);
    expect(report.steps.some((s) => s.status === 'failed' && /transaction is already open/.test(s.error ?? ''))).toBe(true);
    expect(conn.inTransaction).toBe(true); // still the host's
    expect(tableExists(conn, 'task_session_subagents').n).toBe(0);
    conn.exec('COMMIT');
    expect((conn.prepare("SELECT COUNT(*) AS n FROM task_sessions WHERE id = 's-host'").get() as { n: number }).n).toBe(1);
    expect((await createSqliteStore(conn).runMigrations()).ok).toBe(true);
    expect(tableExists(conn, 'task_session_subagents').n).toBe(1);
  });

  it('a body that returns a promise is refused and rolled back, in a transaction of its own and in a savepoint', () => {
    const conn = db.sqlite!;
    conn.exec('CREATE TABLE scratch (v INTEGER)');
    const asyncBody = async () => void conn.exec('INSERT INTO scratch VALUES (1)');
    expect(() => withImmediateTransaction(conn, asyncBody)).toThrow(/cannot return a promise/);
    expect(conn.inTransaction).toBe(false);
    conn.exec('BEGIN');
    conn.exec('INSERT INTO scratch VALUES (2)');
    expect(() => inWriteScope(conn, asyncBody)).toThrow(/cannot return a promise/);
    expect(conn.inTransaction).toBe(true); // the savepoint was undone, the host's transaction kept
    conn.exec('COMMIT');
    expect(conn.prepare('SELECT v FROM scratch').pluck().all()).toEqual([2]);
  });

  it('the write lock up front: a batch that cannot take it fails every frame, counted, with no transaction left open', async () => {
    const conn = db.sqlite!;
    const store = createSqliteStore(conn, { clock: steppingClock(), logger: { warn: () => {} } });
    expect((await store.runMigrations()).ok).toBe(true);
    await insertSession(db, 's1', 'task-1');
    conn.pragma('busy_timeout = 0');
    const holder = new Database(db.location);
    try {
      holder.exec('BEGIN IMMEDIATE');
      expect(await store.recordFrames([frame({ toolCallId: 'a' }), frame({ toolCallId: 'b' })])).toEqual(['failed', 'failed']);
      expect(conn.inTransaction).toBe(false);
      holder.exec('COMMIT');
      expect(await store.recordFrames([frame({ toolCallId: 'c' })])).toEqual(['persisted']);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
    expect(store.counters()).toMatchObject({ attempted: 3, failed: 2, persisted: 1 });
  });

  it('withAsyncTransaction (the proxy writer): refuses to open inside an open transaction; one SQLite ended itself rejects', async () => {
    const conn = db.sqlite!;
    conn.exec('CREATE TABLE scratch (v INTEGER)');
    conn.exec('BEGIN');
    await expect(withAsyncTransaction(conn, async () => 1)).rejects.toMatchObject({ code: 'transaction_open' });
    expect(conn.inTransaction).toBe(true); // still the caller's
    conn.exec('ROLLBACK');
    conn.exec("CREATE TRIGGER ends_it BEFORE INSERT ON scratch WHEN NEW.v = 99 BEGIN SELECT RAISE(ROLLBACK, 'ended by a trigger'); END");
    await expect(
      withAsyncTransaction(conn, async () => {
        conn.exec('INSERT INTO scratch VALUES (1)');
        await new Promise((r) => setTimeout(r, 5));
        try {
          conn.exec('INSERT INTO scratch VALUES (99)');
        } catch {
          // the body goes on, as the store's batch does after a failed frame
        }
        conn.exec('INSERT INTO scratch VALUES (2)'); // autocommitted: the transaction is gone
      }),
    ).rejects.toThrow('the transaction was rolled back by SQLite');
    expect(conn.inTransaction).toBe(false);
    expect(conn.prepare('SELECT v FROM scratch').pluck().all()).toEqual([2]); // 1 rolled back with the transaction
  });

  it('withAsyncTransaction with a LockWait: waits for the lock in slices with timers running between them; SQLITE_BUSY past its time', async () => {
    const holder = db.sqlite!;
    const waiter = new Database(holder.name, { timeout: 5_000 });
    try {
      holder.exec('BEGIN IMMEDIATE');
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      const started = performance.now();
      // 1.2 s of 50 ms slices: about 24 chances for the timer. On a loaded machine a slice's
      // busy-wait sleeps overshoot (once only 3 ticks came in a 600 ms wait, inside the whole
      // suite), so the wait is long enough for 4 even at 300 ms a slice.
      await expect(withAsyncTransaction(waiter, async () => 1, { totalMs: 1_200, sliceMs: 50 })).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      const waited = performance.now() - started;
      clearInterval(timer);
      expect(waited).toBeGreaterThanOrEqual(1_190);
      expect(waited).toBeLessThan(3_600);
      // One synchronous 1.2 s wait would have let the timer run once at most, after it.
      expect(ticks).toBeGreaterThanOrEqual(4); // about one per 50 ms slice
      expect(waiter.pragma('busy_timeout', { simple: true })).toBe(5_000);
      expect(waiter.inTransaction).toBe(false);
      // Released while it waits: it takes the lock and commits.
      setTimeout(() => holder.exec('COMMIT'), 200);
      expect(await withAsyncTransaction(waiter, async () => waiter.inTransaction, { totalMs: 5_000, sliceMs: 50 })).toBe(true);
      expect(waiter.pragma('busy_timeout', { simple: true })).toBe(5_000);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      waiter.close();
    }
  });
});
