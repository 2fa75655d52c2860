// The backfill tests' rows and steps: a backfilled row as listBySession returns it, and per
// suite the host-timestamp, message-seeding, migrate-and-check and row-listing helpers
// (on the suite's current database, read through \`current\`).
import { expect } from 'vitest';
import { subagentColumns } from '../../generated/sqlite/schema.js';
import type { SubagentContextRow } from '../../src/index.js';
import { steppingClock } from './clock.js';
import { stepStatuses } from './migration-db.js';
import type { Dialect, TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';
import { recordingLogger } from './recording-logger.js';
import { insertMessage, type MessageSeed } from './seed-host-rows.js';
import { hostTimestamp } from './host-timestamp.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every column NULL, from the DDL's column list (a new nullable column backfills as NULL unless a test says otherwise). */
export const ALL_NULL = Object.fromEntries(subagentColumns.filter((c) => c !== 'id').map((c) => [c, null]));

/** A backfilled row as listBySession returns it, without its random id. */
export function backfilled(over: Partial<SubagentContextRow>): Omit<SubagentContextRow, 'id'> {
  return {
    ...(ALL_NULL as unknown as Omit<SubagentContextRow, 'id'>),
    task_session_id: 's1',
    task_id: 'task-s1',
    agent_execution_id: 'unknown',
    tool_call_id: 'toolu',
    is_async: false,
    source: 'backfill',
    observed_at: '',
    updated_at: '',
    ...over,
  };
}
export const withoutId = (rows: SubagentContextRow[]) => rows.map(({ id: _id, ...rest }) => rest);

/** The helpers of a backfill suite on `dialect`, on the database `current()` returns. */
export function backfillHelpers(dialect: Dialect, current: () => TestDb) {
  /** Host timestamp text: Go-driver form with the given offset on SQLite, UTC TIMESTAMP text on PostgreSQL. */
  const ts = (utc: string, sqliteForm?: string) => byDialect(dialect, { sqlite: sqliteForm ?? hostTimestamp(dialect, utc), postgres: utc });
  const message = (m: Omit<MessageSeed, 'sessionId'> & { sessionId?: string }) => insertMessage(current(), { sessionId: 's1', ...m });
  const migrate = async () => {
    const logger = recordingLogger();
    const report = await current().store({ clock: steppingClock(), logger }).runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report).backfill_subagent_contexts).toBe('applied');
    expect(logger.lines).toEqual([]);
    return report;
  };
  const rows = async (sessionId = 's1') => withoutId(await current().store().listBySession(sessionId));
  return { ts, message, migrate, rows };
}
