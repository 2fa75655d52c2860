// The AC-24 order, observed through each real database (test/migrations-backfill-order.test.ts):
// every backfilled row, key insert and clock read logged in sequence, with the transaction it
// happened in and the rows committed at that moment, as another connection sees them.
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { steppingClock } from './clock.js';
import type { TestDb } from './test-db.js';

export interface OrderEvent {
  /** 'insert' (one backfilled row), `key <name>` (a kandev_meta insert), 'clock' (a clock read), 'host microtask'. */
  what: string;
  /** Inside the still-open transaction that inserted the backfilled rows. */
  inBackfillTransaction: boolean;
  /** For 'clock': the instant it returned. */
  ns?: bigint;
  /** Which transaction (not for 'clock' on PostgreSQL): equal within one, different across. */
  tx?: string;
  /** Backfilled rows committed at that moment, as another connection sees them. */
  committedRows?: number;
}

export interface OrderLog {
  /** The clock the store is given: each read is logged in sequence with the database's events. */
  clock: () => bigint;
  events(): Promise<OrderEvent[]>;
  close(): void;
}

/**
 * SQLite: triggers call a JavaScript function on the store's own connection, which logs the
 * event and asks a second connection (WAL: it sees only committed data) how many backfilled
 * rows are committed. Rows inserted but none committed = inside the inserting transaction.
 */
export async function sqliteOrderLog(db: TestDb): Promise<OrderLog> {
  const reader = new Database(db.location, { readonly: true });
  const committed = () => Number((reader.prepare(`SELECT count(*) AS n FROM task_session_subagents WHERE source = 'backfill'`).get() as { n: number }).n);
  const committedKeys = () => Number((reader.prepare(`SELECT count(*) AS n FROM kandev_meta`).get() as { n: number }).n);
  const events: OrderEvent[] = [];
  let inserted = 0;
  const note = (what: string, ns?: bigint) => {
    if (what === 'insert' && inserted++ === 0) queueMicrotask(() => note('host microtask'));
    const rows = committed();
    // Every transaction of the backfill commits a row or a key, so what is committed names the
    // transaction an event happens in.
    events.push({ what, ns, inBackfillTransaction: inserted > 0 && rows === 0, tx: `${rows}/${committedKeys()}`, committedRows: rows });
  };
  db.sqlite!.function('note_order', (what: unknown) => {
    note(String(what));
    return null;
  });
  await db.exec(`
    CREATE TRIGGER order_row AFTER INSERT ON task_session_subagents WHEN NEW.source = 'backfill' BEGIN SELECT note_order('insert'); END;
    CREATE TRIGGER order_key AFTER INSERT ON kandev_meta BEGIN SELECT note_order('key ' || NEW.key); END;`);
  const base = steppingClock();
  return {
    clock: () => {
      const ns = base();
      note('clock', ns);
      return ns;
    },
    events: async () => events,
    close: () => reader.close(),
  };
}

/**
 * PostgreSQL: triggers append to a log table whose bigserial orders the events and whose
 * default records txid_current(); the sequence is not transactional, so a clock read can see
 * from another session how far the uncommitted log has got, and how many backfilled rows are
 * committed. The clock reads synchronously, so it asks from a child process.
 */
export async function postgresOrderLog(db: TestDb): Promise<OrderLog> {
  await db.exec(`
    CREATE TABLE order_log (seq bigserial PRIMARY KEY, what text NOT NULL, tx bigint NOT NULL DEFAULT txid_current());
    CREATE FUNCTION log_row() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN INSERT INTO order_log (what) VALUES ('insert'); RETURN NULL; END $f$;
    CREATE FUNCTION log_key() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN INSERT INTO order_log (what) VALUES ('key ' || NEW.key); RETURN NULL; END $f$;
    CREATE TRIGGER order_row AFTER INSERT ON task_session_subagents FOR EACH ROW WHEN (NEW.source = 'backfill') EXECUTE FUNCTION log_row();
    CREATE TRIGGER order_key AFTER INSERT ON kandev_meta FOR EACH ROW EXECUTE FUNCTION log_key();`);
  const script = `const pg = require('pg'); const c = new pg.Client(process.argv[1]); c.on('error', () => {});
    c.connect().then(() => c.query(\`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS after,
        (SELECT count(*) FROM task_session_subagents WHERE source = 'backfill') AS committed FROM order_log_seq_seq\`))
     .then((r) => { process.stdout.write(JSON.stringify(r.rows[0])); return c.end(); })`;
  const reads: { ns: bigint; after: number; committed: number }[] = [];
  const base = steppingClock();
  return {
    clock: () => {
      const ns = base();
      const seen = JSON.parse(execFileSync(process.execPath, ['-e', script, db.location], { cwd: process.cwd(), encoding: 'utf8' }));
      reads.push({ ns, after: Number(seen.after), committed: Number(seen.committed) });
      return ns;
    },
    events: async () => {
      const rows = await db.query<{ seq: string; what: string; tx: string }>(`SELECT seq, what, tx FROM order_log ORDER BY seq`);
      const firstInsert = rows.find((r) => r.what === 'insert');
      const events: OrderEvent[] = [];
      const readsAfter = (seq: number) =>
        reads
          .filter((r) => r.after === seq)
          .map((r) => ({
            what: 'clock',
            ns: r.ns,
            inBackfillTransaction: !!firstInsert && r.after >= Number(firstInsert.seq) && r.committed === 0,
            committedRows: r.committed,
          }));
      events.push(...readsAfter(0));
      for (const r of rows) {
        events.push({ what: r.what, inBackfillTransaction: r.tx === firstInsert?.tx, tx: r.tx });
        events.push(...readsAfter(Number(r.seq)));
      }
      return events;
    },
    close: () => undefined,
  };
}
