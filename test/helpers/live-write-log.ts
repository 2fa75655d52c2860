// A write log kept by the database itself, for the concurrency tests: an AFTER INSERT/UPDATE
// trigger appends (sequence, operation, tool_call_id, description, updated_at, connection) for
// every row the upsert writes. For one key the log order IS the commit order: a writer holds
// the row's lock from its write until it commits, so the next writer of that key cannot fire
// its trigger earlier. Frames carry a unique marker in `description` to be recognised.
import { parseInstant } from '../../src/instant.js';
import type { TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';

export interface LogEntry {
  seq: number;
  op: 'INSERT' | 'UPDATE';
  toolCallId: string;
  marker: string;
  /** The frame's observation time (the row's updated_at after this write), in nanoseconds. */
  observedAtNs: bigint;
  /** PostgreSQL backend pid (SQLite: 0). */
  connection: number;
}

export async function installWriteLog(db: TestDb): Promise<void> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`CREATE TABLE write_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT, tool_call_id TEXT, marker TEXT, observed TEXT);
      CREATE TRIGGER write_log_insert AFTER INSERT ON task_session_subagents BEGIN
        INSERT INTO write_log (op, tool_call_id, marker, observed) VALUES ('INSERT', NEW.tool_call_id, NEW.description, NEW.updated_at); END;
      CREATE TRIGGER write_log_update AFTER UPDATE ON task_session_subagents BEGIN
        INSERT INTO write_log (op, tool_call_id, marker, observed) VALUES ('UPDATE', NEW.tool_call_id, NEW.description, NEW.updated_at); END;`);
    return;
  }
  await db.exec(`CREATE TABLE write_log (seq bigserial PRIMARY KEY, op text, tool_call_id text, marker text, observed text, connection int);
    CREATE FUNCTION write_log() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO write_log (op, tool_call_id, marker, observed, connection)
      VALUES (TG_OP, NEW.tool_call_id, NEW.description, to_char(NEW.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), pg_backend_pid());
      RETURN NULL;
    END $$;
    CREATE TRIGGER write_log AFTER INSERT OR UPDATE ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION write_log();`);
}

export async function readWriteLog(db: TestDb): Promise<LogEntry[]> {
  const columns = byDialect(db.dialect, { sqlite: '0 AS connection', postgres: 'connection' });
  const rows = await db.query<{ seq: number | string; op: 'INSERT' | 'UPDATE'; tool_call_id: string; marker: string; observed: string; connection: number }>(
    `SELECT seq, op, tool_call_id, marker, observed, ${columns} FROM write_log ORDER BY seq`,
  );
  return rows.map((r) => {
    const ns = parseInstant(r.observed);
    if (ns === null) throw new Error(`unparseable logged instant ${r.observed}`);
    return { seq: Number(r.seq), op: r.op, toolCallId: r.tool_call_id, marker: r.marker, observedAtNs: ns, connection: Number(r.connection) };
  });
}
