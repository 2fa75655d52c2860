// Which statements checkHealth() sends, and how many of PostgreSQL's pool connections it holds
// at once (src/health/check-health.ts): the table probe once for both table checks, the JSON
// helper's own probe on PostgreSQL beside it (never the migration runner's whole shape
// probe), then the four counts as two chains — at most two connections at a time, and the
// two window scans overlapping; on PostgreSQL each chain in one transaction that pins its
// search_path first (queries/postgres/set_local_search_path.sql). Every statement is
// recorded as the driver receives it: better-sqlite3's `verbose` hook on a second connection to
// the same file, and on PostgreSQL every pooled client's query() with the pool's
// acquire/release events.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { byDialect } from './helpers/by-dialect.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;

interface Recorded {
  /** The statements in the order sent, transaction control and the pinned settings left out. */
  statements: string[];
  /** PostgreSQL: each connection's statements in the order it sent them, all of them. */
  perConnection: string[][];
  mostConnections: number;
  verdict: string;
}

/** The statement a SQL text is, by what only that statement says. */
function statementOf(sql: string): string {
  const kinds: [string, RegExp][] = [
    ['shape', /unique_index AS/],
    ['json helper', /AS "json_helper_state!?"/],
    ['pin', /set_config\(\s*'search_path'/],
    ['times', /set_config\('DateStyle'/],
    ['begin', /^BEGIN$/],
    ['commit', /^COMMIT$/],
    ['tables', /AS "task_sessions!?"/],
    ['keys', /AS "capture_since\??"/],
    ['shortfall', /AS "shortfall!?"/],
    ['excess', /AS "excess!?"/],
    ['collisions', /AS "collisions!?"/],
    ['max observed', /AS "last_observed_at\??"/],
  ];
  return kinds.find(([, re]) => re.test(sql))?.[0] ?? `other: ${sql.slice(0, 40)}`;
}

describeBothDialects('health: the statements checkHealth() sends', (dialect) => {
  let db: TestDb;
  let traced: Database.Database | undefined;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, T0 + SECOND) });
  });
  afterEach(async () => {
    traced?.close();
    traced = undefined;
    await db.close();
  });

  /** checkHealth() on a recording connection: the statements in the order sent, and the most connections held at once. */
  const recordHealth = (): Promise<Recorded> => byDialect(dialect, { sqlite: recordSqlite, postgres: recordPostgres })();

  async function recordSqlite(): Promise<Recorded> {
    const statements: string[] = [];
    traced = new Database(db.location, { verbose: (sql) => void statements.push(statementOf(String(sql))) });
    const { verdict } = await createSqliteStore(traced).checkHealth();
    return { statements, perConnection: [], mostConnections: 1, verdict };
  }

  async function recordPostgres(): Promise<Recorded> {
    const sent: [number, string][] = [];
    const pool = db.pool!;
    // Two idle connections, as a host's pool holds once warm: a connection still being opened
    // would let the first chain's statement finish before the second chain starts.
    const warm = await Promise.all([pool.connect(), pool.connect()]);
    for (const c of warm) c.release();
    let held = 0;
    let mostConnections = 0;
    const onAcquire = () => void (mostConnections = Math.max(mostConnections, ++held));
    const onRelease = () => void held--;
    pool.on('acquire', onAcquire).on('release', onRelease);
    // Every statement a pooled client sends (pool.query and a checked-out client alike), each
    // tagged with its connection, so a transaction's statements can be told apart.
    const query = pg.Client.prototype.query;
    const ids = new Map<object, number>();
    // The shortfall's confirmation is held until the excess has been sent (or 10 s pass): on a
    // loaded machine the excess chain's BEGIN and pin may otherwise round-trip after the whole
    // shortfall chain, and the order would say nothing. Chains that did not run side by side
    // would still send the excess after the confirmation, once the hold gives up.
    let excessSent: () => void = () => {};
    const excess = new Promise<void>((resolve) => (excessSent = resolve));
    const holdUntilExcess = Promise.race([excess, new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]);
    const record = function (this: pg.Client, ...args: unknown[]) {
      if (!ids.has(this)) ids.set(this, ids.size + 1);
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as pg.QueryConfig).text;
      const kind = statementOf(text);
      const send = () => {
        sent.push([ids.get(this)!, kind]);
        if (kind === 'excess') excessSent();
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      };
      const confirmation = kind === 'shortfall' && sent.some(([, k]) => k === 'shortfall');
      return confirmation ? holdUntilExcess.then(send) : send();
    };
    (pg.Client.prototype as { query: unknown }).query = record;
    try {
      const { verdict } = await db.store().checkHealth();
      const statements = sent.map(([, kind]) => kind).filter((kind) => !['begin', 'commit', 'pin', 'times'].includes(kind));
      const perConnection = [...new Set(sent.map(([c]) => c))].map((c) => sent.filter(([x]) => x === c).map(([, kind]) => kind));
      return { statements, perConnection, mostConnections, verdict };
    } finally {
      (pg.Client.prototype as { query: unknown }).query = query;
      pool.off('acquire', onAcquire).off('release', onRelease);
    }
  }

  it('probes the tables once, judges the JSON helper with its own statement, then the four counts', async () => {
    const { statements, verdict } = await recordHealth();
    expect(verdict).toBe('shortfall'); // tc-1 has no row: the shortfall is confirmed by a second evaluation
    const helper = byDialect(dialect, { sqlite: [], postgres: ['json helper'] });
    // The helper's probe is sent beside the table probe, the keys after the table probe.
    expect(statements.slice(0, 2 + helper.length).sort()).toEqual([...helper, 'keys', 'tables']);
    expect(statements.indexOf('tables')).toBeLessThan(statements.indexOf('keys'));
    expect(statements.slice(2 + helper.length).sort()).toEqual(['collisions', 'excess', 'max observed', 'shortfall', 'shortfall']);
    expect(statements).not.toContain('shape');
  });

  it('PostgreSQL: each chain of counts runs in one transaction whose search_path and time settings are pinned first', async () => {
    const { perConnection } = await recordHealth();
    // Each connection's transactions, from BEGIN to COMMIT, as the kinds of their statements.
    const transactions = perConnection.flatMap((sent) => sent.join(' ').match(/begin .*? commit/g) ?? []);
    // SQLite resolves no function through a search path: nothing to pin, no transaction.
    expect(transactions.sort()).toEqual(
      byDialect(dialect, { sqlite: [], postgres: ['begin pin times excess collisions commit', 'begin pin times shortfall shortfall max observed commit'] }),
    );
    // No anti-join outside them.
    const outside = perConnection.flatMap((sent) =>
      sent
        .join(' ')
        .replace(/begin .*? commit/g, '')
        .split(' '),
    );
    expect(outside.filter((kind) => kind === 'shortfall' || kind === 'excess')).toEqual([]);
  });

  it('runs the shortfall chain and the excess chain side by side on two connections, never more', async () => {
    const { statements, mostConnections } = await recordHealth();
    // Each chain is sent in its own order: the scoped MAX after the shortfall's confirmation
    // (the verdict's two inputs in order, test/health-confirmation.test.ts); the collisions
    // after the excess.
    const counts = statements.filter((s) => ['shortfall', 'excess', 'collisions', 'max observed'].includes(s));
    const at = (s: string) => counts.indexOf(s);
    expect(counts.lastIndexOf('shortfall')).toBeLessThan(at('max observed'));
    expect(at('excess')).toBeLessThan(at('collisions'));
    // The excess is sent before the shortfall's confirmation: it does not wait for that chain.
    expect(at('excess')).toBeLessThan(counts.lastIndexOf('shortfall'));
    // SQLite has one connection, and its synchronous statements run in turn.
    expect(mostConnections).toBe(byDialect(dialect, { sqlite: 1, postgres: 2 }));
  });
});
