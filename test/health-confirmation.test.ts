// AC-28b: a non-zero shortfall is confirmed by a second evaluation before it is a verdict.
// The transient is made real inside the database: while the FIRST shortfall statement runs,
// the missing row is committed by a separate write that statement's snapshot cannot see,
// so the first evaluation reads 1 and the confirmation reads 0. The hook is a per-row function
// the statement evaluates: on PostgreSQL a VOLATILE function of the operator's own behind a view
// named task_session_messages in a schema the store's connections put first on search_path (a
// function the statements call by name cannot be the hook: they reach pg_catalog's or the
// package's own first, queries/postgres/set_local_search_path.sql), on SQLite a connection-level
// json_valid that writes through a second connection. On PostgreSQL the excess statement runs
// beside the shortfall on another connection (src/health/check-health.ts) and reads the same
// view, so the hook fires only inside the shortfall statement, and only once (the UPDATE …
// WHERE armed takes the row: a second caller waits, then finds it disarmed).
import Database from 'better-sqlite3';
import type pg from 'pg';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type StoreOptions } from '../src/index.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const T0 = 1_785_000_000_000_000_000n;
const LATE_ROW =
  "INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at) VALUES ('r-late', 's1', 'task-s1', 'unknown', 'tc-late', 'live', $1, $1)";

describeBothDialects('health: AC-28b confirmation', (dialect) => {
  let db: TestDb;
  let second: Database.Database | undefined;
  let hooked: pg.Pool | undefined;
  /** The store under test: on PostgreSQL on connections whose search_path finds the hooked view first. */
  const storeOf = (options: StoreOptions) => {
    if (dialect === 'sqlite') return db.store(options);
    hooked ??= poolFor({ connectionString: db.location, max: 2, options: '-c search_path=hook,public' });
    return createPostgresStore(hooked, options);
  };
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.executionSince]: formatKeyInstant(T0) });
    await insertSubagentMessage(db, { id: 'm-ok', sessionId: 's1', toolCallId: 'tc-ok', createdAt: hostTimestamp(db, T0 + SECOND) });
    await insertSubagentRow(db, { id: 'r-ok', sessionId: 's1', toolCallId: 'tc-ok', observedAt: hostTimestamp(db, T0 + SECOND) });
    // The message whose row arrives while the first shortfall statement is running.
    await insertSubagentMessage(db, { id: 'm-late', sessionId: 's1', toolCallId: 'tc-late', createdAt: hostTimestamp(db, T0 + 2n * SECOND) });
  });
  afterEach(async () => {
    second?.close();
    second = undefined;
    await hooked?.end();
    hooked = undefined;
    await db.close();
  });

  /** Arms the database so the next shortfall statement commits r-late mid-statement. */
  async function armLateWrite(): Promise<void> {
    const observedAt = hostTimestamp(db, T0 + 2n * SECOND);
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      await db.exec(`
        CREATE TABLE injection (armed boolean NOT NULL);
        INSERT INTO injection VALUES (true);
        CREATE SCHEMA hook;
        CREATE FUNCTION hook.late(metadata text) RETURNS text
        LANGUAGE plpgsql VOLATILE AS $f$
        BEGIN
          IF current_query() LIKE '%AS "shortfall!"%' THEN
            UPDATE public.injection SET armed = false WHERE armed;
            IF FOUND THEN
              ${LATE_ROW.replace(/\$1/g, `'${observedAt}'`).replace('INTO task_session_subagents', 'INTO public.task_session_subagents')};
            END IF;
          END IF;
          RETURN metadata;
        END
        $f$;
        CREATE VIEW hook.task_session_messages AS
          SELECT id, task_session_id, task_id, turn_id, author_type, author_id, content, requests_input, type,
                 hook.late(metadata) AS metadata, created_at, updated_at
            FROM public.task_session_messages;`);
      return;
    }
    const writer = new Database(db.location);
    second = writer;
    let armed = true;
    db.sqlite!.function('json_valid', { deterministic: false }, (doc: unknown) => {
      if (armed) {
        armed = false;
        writer.prepare(LATE_ROW.replace('$1, $1', '@at, @at')).run({ at: observedAt });
      }
      if (typeof doc !== 'string') return null;
      try {
        JSON.parse(doc);
        return 1;
      } catch {
        return 0;
      }
    });
  }

  it('a shortfall that the second evaluation no longer sees is not a shortfall verdict', async () => {
    await armLateWrite();
    const info: object[] = [];
    const store = storeOf({ logger: { warn: () => {}, info: (fields) => void info.push(fields) } });
    const report = await store.checkHealth();
    expect(report).toMatchObject({ shortfall: 0, excess: 0, verdict: 'healthy', last_observed_at: '2026-07-25T17:20:02.000000Z' });
    // The first evaluation did see the transient, and it was logged as unconfirmed.
    expect(info).toEqual([{ dialect, first: 1, second: 0 }]);
    const [{ n }] = await db.query<{ n: number | bigint | string }>("SELECT COUNT(*) AS n FROM task_session_subagents WHERE id = 'r-late'");
    expect(Number(n)).toBe(1);
  });

  it('a logger whose info throws: the unconfirmed shortfall is still healthy, never a database_error (src/logger.ts)', async () => {
    await armLateWrite();
    const logger = {
      warn: () => {},
      info: () => {
        throw new Error('logger down');
      },
    };
    await expect(storeOf({ logger }).checkHealth()).resolves.toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });

  it('a shortfall that persists through the second evaluation is the verdict', async () => {
    const info: object[] = [];
    const report = await storeOf({ logger: { warn: () => {}, info: (fields) => void info.push(fields) } }).checkHealth();
    expect(report).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
    expect(info).toEqual([]);
  });
});
