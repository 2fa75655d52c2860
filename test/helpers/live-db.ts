// Database-side helpers for the live-path tests: the raw stored row (every column, exactly as
// stored) and failures injected through the real database (triggers), never by stubbing code.
import type { SubagentFrame } from '../../src/types.js';
import type { TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';

export const EXEC_A = '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11';
export const EXEC_B = 'a91c3f0e-2b7d-4e8a-8c1f-5d6e7f809a1b';

/** A frame with a full identity; `payload` and any field can be overridden. */
export function frame(overrides: Partial<SubagentFrame> = {}): SubagentFrame {
  return { sessionId: 's1', taskId: 'task-1', turnId: 'turn-1', executionId: EXEC_A, toolCallId: 'toolu_01', payload: {}, ...overrides };
}

/**
 * The stored row, every column rendered exactly as the database holds it: on SQLite each
 * value through quote() (type and bytes), on PostgreSQL the row's text form (microsecond
 * timestamps, no driver conversion). Two equal results mean a byte-identical row.
 */
export async function rawRow(db: TestDb, sessionId: string, executionId: string, toolCallId: string): Promise<string | null> {
  const where = 'WHERE task_session_id = $1 AND agent_execution_id = $2 AND tool_call_id = $3';
  if (byDialect(db.dialect, { sqlite: false, postgres: true })) {
    const rows = await db.query<{ raw: string }>(`SELECT t::text AS raw FROM task_session_subagents t ${where}`, [sessionId, executionId, toolCallId]);
    return rows.length === 1 ? rows[0].raw : null;
  }
  const columns = (await db.query<{ name: string }>(`SELECT name FROM pragma_table_info('task_session_subagents') ORDER BY cid`)).map((c) => c.name);
  const rows = await db.query<{ raw: string }>(`SELECT ${columns.map((c) => `quote(${c})`).join(` || '|' || `)} AS raw FROM task_session_subagents ${where}`, [
    sessionId,
    executionId,
    toolCallId,
  ]);
  return rows.length === 1 ? rows[0].raw : null;
}

/** The stored rows' tool_call_ids, in order: which writes landed. */
export async function storedToolCallIds(db: TestDb): Promise<string[]> {
  return (await db.query<{ tool_call_id: string }>('SELECT tool_call_id FROM task_session_subagents ORDER BY tool_call_id')).map((r) => r.tool_call_id);
}

/**
 * Makes every write of `toolCallId` fail inside the database:
 * - 'statement': the statement fails and only it is undone (SQLite RAISE(ABORT), a PostgreSQL
 *   BEFORE trigger raising), so other frames of a batch can still commit;
 * - 'transaction': the whole transaction fails (SQLite RAISE(ROLLBACK); on PostgreSQL a
 *   deferred constraint trigger that raises at COMMIT).
 */
export async function failWritesOf(db: Pick<TestDb, 'dialect' | 'exec'>, toolCallId: string, scope: 'statement' | 'transaction' = 'statement'): Promise<void> {
  const id = toolCallId.replace(/'/g, "''");
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const action = scope === 'statement' ? 'ABORT' : 'ROLLBACK';
    for (const event of ['INSERT', 'UPDATE']) {
      await db.exec(`CREATE TRIGGER inject_${scope}_${event.toLowerCase()}_${Buffer.from(id).toString('hex')} BEFORE ${event} ON task_session_subagents
        WHEN NEW.tool_call_id = '${id}' BEGIN SELECT RAISE(${action}, 'injected failure'); END`);
    }
    return;
  }
  await db.exec(`CREATE OR REPLACE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
  const name = `inject_${scope}_${Buffer.from(id).toString('hex')}`;
  if (scope === 'statement') {
    await db.exec(`CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE ON task_session_subagents
      FOR EACH ROW WHEN (NEW.tool_call_id = '${id}') EXECUTE FUNCTION inject_failure()`);
  } else {
    await db.exec(`CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT OR UPDATE ON task_session_subagents
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.tool_call_id = '${id}') EXECUTE FUNCTION inject_failure()`);
  }
}
