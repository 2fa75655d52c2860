// Seeds the crash-safety stores inside the database (recursive CTE / generate_series), so a
// large store costs seconds to build. 'backfill': host tables and many messages, 1 in 20 a
// qualifying subagent message. 'legacy_rebuild': the same plus a large pre-amendment
// task_session_subagents table (NULL metrics and Go-driver timestamps included). The
// backfill store holds the package's fresh schema already, so the backfill is all that is left.
import * as sqlite from '../../generated/sqlite/index.js';
import * as postgres from '../../generated/postgres/index.js';
import type { Dialect } from '../helpers/test-db.js';
import { byDialect } from '../helpers/by-dialect.js';

export type Phase = 'backfill' | 'legacy_rebuild';

// The rebuild store holds few messages, so a pass is mostly the rebuild and most kills land in it.
const MESSAGES = (phase: Phase) => Number(process.env.SUBAGENT_CONTEXT_CRASH_MESSAGES ?? (phase === 'backfill' ? 30_000 : 4_000));
const LEGACY_ROWS = Number(process.env.SUBAGENT_CONTEXT_CRASH_LEGACY_ROWS ?? 25_000);
const SESSIONS = 200;

function sqliteSeed(phase: Phase): string {
  const host = sqlite.hostSchema.map((s) => s.sql).join('\n');
  // The backfill phase starts from an amended, empty table, so the backfill is the only
  // work left; the rebuild phase starts from the pre-amendment table.
  const legacy = (phase === 'legacy_rebuild' ? sqlite.legacySchema : sqlite.packageSchema).map((s) => s.sql).join('\n');
  return `
${host}
${legacy}
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${SESSIONS - 1})
INSERT INTO task_sessions (id, task_id, created_at, updated_at)
SELECT 's' || i, 'task-' || (i / 4), '2026-07-01 00:00:00.5+00:00', '2026-07-01 00:00:00.5+00:00' FROM n;

WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${MESSAGES(phase) - 1})
INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, content, type, metadata, created_at, updated_at)
SELECT printf('m%08d', i), 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 4), 'turn-' || (i / 7),
       printf('message %d with some ordinary text content to give rows a realistic width', i), 'message',
       CASE WHEN i % 20 = 0 THEN json_object(
              'tool_call_id', 'toolu_' || i, 'status', CASE WHEN i % 40 = 0 THEN 'completed' ELSE 'in_progress' END,
              'normalized', json_object('kind', 'subagent_task', 'subagent_task', json_object(
                'status', 'completed', 'model', 'claude-opus-5', 'subagent_type', 'reviewer',
                'total_tokens', i, 'duration_ms', i * 3, 'tool_use_count', i % 5)))
            ELSE json_object('kind', 'text', 'text', 'hello ' || i) END,
       strftime('%Y-%m-%d %H:%M:%S', 1785000000 + i / 10, 'unixepoch') || '.' || printf('%06d', (i * 7919) % 1000000) || '+00:00',
       NULL
  FROM n;
${
  phase === 'legacy_rebuild'
    ? `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${LEGACY_ROWS - 1})
INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, tool_call_id, model, agent_status, tool_status,
  is_async, total_tokens, tool_use_count, duration_ms, source, observed_at, settled_at, updated_at)
SELECT printf('legacy-row-%08d', i), 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 4),
       CASE WHEN i % 3 = 0 THEN NULL ELSE 'turn-' || i END, 'legacy_' || i,
       CASE WHEN i % 2 = 0 THEN 'claude-opus-5' END, 'async_launched', 'completed', i % 2,
       CASE WHEN i % 4 = 0 THEN NULL ELSE i END, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 9 END, NULL,
       'live',
       strftime('%Y-%m-%d %H:%M:%S', 1784000000 + i, 'unixepoch') || rtrim(rtrim('.' || printf('%06d', i % 1000000), '0'), '.') || '+00:00',
       CASE WHEN i % 2 = 0 THEN strftime('%Y-%m-%d %H:%M:%S', 1784000100 + i, 'unixepoch') || '.5+00:00' END,
       strftime('%Y-%m-%d %H:%M:%S', 1784000100 + i, 'unixepoch') || '.5+00:00'
  FROM n;`
    : ''
}`;
}

function postgresSeed(phase: Phase): string {
  const host = postgres.hostSchema.map((s) => s.sql).join('\n');
  const legacy = (phase === 'legacy_rebuild' ? postgres.legacySchema : postgres.packageSchema).map((s) => s.sql).join('\n');
  return `
${host}
${legacy}
INSERT INTO task_sessions (id, task_id, created_at, updated_at)
SELECT 's' || i, 'task-' || (i / 4), '2026-07-01 00:00:00.5', '2026-07-01 00:00:00.5' FROM generate_series(0, ${SESSIONS - 1}) AS i;

INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, content, type, metadata, created_at, updated_at)
SELECT 'm' || lpad(i::text, 8, '0'), 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 4), 'turn-' || (i / 7),
       'message ' || i || ' with some ordinary text content to give rows a realistic width', 'message',
       CASE WHEN i % 20 = 0 THEN jsonb_build_object(
              'tool_call_id', 'toolu_' || i, 'status', CASE WHEN i % 40 = 0 THEN 'completed' ELSE 'in_progress' END,
              'normalized', jsonb_build_object('kind', 'subagent_task', 'subagent_task', jsonb_build_object(
                'status', 'completed', 'model', 'claude-opus-5', 'subagent_type', 'reviewer',
                'total_tokens', i, 'duration_ms', i * 3, 'tool_use_count', i % 5)))::text
            ELSE jsonb_build_object('kind', 'text', 'text', 'hello ' || i)::text END,
       timestamp '2026-07-25 17:20:00' + (i / 10) * interval '1 second' + ((i * 7919) % 1000000) * interval '1 microsecond',
       NULL
  FROM generate_series(0, ${MESSAGES(phase) - 1}) AS i;
${
  phase === 'legacy_rebuild'
    ? `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, tool_call_id, model, agent_status, tool_status,
  is_async, total_tokens, tool_use_count, duration_ms, source, observed_at, settled_at, updated_at)
SELECT 'legacy-row-' || lpad(i::text, 8, '0'), 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 4),
       CASE WHEN i % 3 = 0 THEN NULL ELSE 'turn-' || i END, 'legacy_' || i,
       CASE WHEN i % 2 = 0 THEN 'claude-opus-5' END, 'async_launched', 'completed', i % 2,
       CASE WHEN i % 4 = 0 THEN NULL ELSE i END, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 9 END, NULL,
       'live',
       timestamp '2026-07-14 00:00:00' + i * interval '1 second' + (i % 1000000) * interval '1 microsecond',
       CASE WHEN i % 2 = 0 THEN timestamp '2026-07-14 00:01:40.5' + i * interval '1 second' END,
       timestamp '2026-07-14 00:01:40.5' + i * interval '1 second'
  FROM generate_series(0, ${LEGACY_ROWS - 1}) AS i;`
    : ''
}`;
}

export function crashStoreSeed(dialect: Dialect, phase: Phase): string {
  return byDialect(dialect, { sqlite: () => sqliteSeed(phase), postgres: () => postgresSeed(phase) })();
}
