// A store for the health statements' plans (test/health-plans.test.ts, test/host-index.test.ts):
// `messages` host messages, one every 86 s from 2026-01-01, over SESSIONS sessions; every 10th
// is a subagent message, and each has its row except when i % 1000 = 500 (a missed write).
// capture_since and execution_since are at the last 1%, where that is messages / 100
// subagents and messages / 100,000 misses.
import { formatKeyInstant } from '../../src/instant.js';
import { byDialect } from './by-dialect.js';
import { KEY, setKeys } from './activation-keys.js';
import { SECOND } from './host-timestamp.js';
import type { TestDb } from './test-db.js';

const SESSIONS = 100;
const BASE_S = 1_767_225_600n; // 2026-01-01T00:00:00Z; message i is created at BASE + 86 i seconds

/** The window start the seed sets: the last 1% of `messages`. */
export const lastPercentSinceNs = (messages: number): bigint => (BASE_S + 86n * BigInt(messages - messages / 100)) * SECOND;

/** The host's sessions and messages alone (a history the backfill has not seen). */
export async function seedHealthMessages(db: TestDb, messages: number): Promise<void> {
  const n = messages - 1;
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${SESSIONS - 1})
        SELECT 's' || i, 'task-' || i, '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00' FROM c;
      INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || (i % ${SESSIONS}),
               CASE WHEN i % 10 = 0
                    THEN '{"tool_call_id":"tc' || i || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"status":"completed"}}}'
                    ELSE '{"tool_call_id":"x' || i || '","normalized":{"kind":"read"}}' END,
               strftime('%Y-%m-%d %H:%M:%S', ${BASE_S} + 86 * i, 'unixepoch') || '.' || printf('%06d', (i * 137) % 1000000) || '+00:00'
          FROM c;`);
  } else {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        SELECT 's' || i, 'task-' || i, '2026-01-01', '2026-01-01' FROM generate_series(0, ${SESSIONS - 1}) AS i;
      INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || (i % ${SESSIONS}),
               CASE WHEN i % 10 = 0
                    THEN '{"tool_call_id":"tc' || i || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"status":"completed"}}}'
                    ELSE '{"tool_call_id":"x' || i || '","normalized":{"kind":"read"}}' END,
               timestamp '2026-01-01' + (86 * i) * interval '1 second' + ((i * 137) % 1000000) * interval '1 microsecond'
          FROM generate_series(0, ${n}) AS i;`);
  }
}

/** The messages, their rows but for the misses, and the keys at the last 1%. */
export async function seedHealthStore(db: TestDb, messages: number): Promise<void> {
  await seedHealthMessages(db, messages);
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`
      INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, 'unknown', json_extract(m.metadata, '$.tool_call_id'), 'live', m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE CAST(substr(m.id, 2) AS INTEGER) % 10 = 0 AND CAST(substr(m.id, 2) AS INTEGER) % 1000 <> 500;`);
  } else {
    await db.exec(`
      INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, 'unknown', m.metadata::jsonb ->> 'tool_call_id', 'live', m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE substr(m.id, 2)::int % 10 = 0 AND substr(m.id, 2)::int % 1000 <> 500;`);
  }
  const since = formatKeyInstant(lastPercentSinceNs(messages));
  await setKeys(db, { [KEY.captureSince]: since, [KEY.executionSince]: since });
}
