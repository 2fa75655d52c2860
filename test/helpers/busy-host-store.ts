// A host store seeded set-based (one INSERT … SELECT per table, no row through JavaScript) for
// the tests of a backfill that runs while the host keeps writing (issues 32 and 34). Sessions
// are 's000000'…, so key order is numeric order; message i belongs to session i % sessions
// (sessions interleave on disk, as a busy host's do; `contiguous` keeps each session's together), is created i seconds after 2026-01-01,
// and is a subagent message exactly when i % SUBAGENT_EVERY = 0, with tool_call_id 'tc<i>'
// and a description long enough that parsing it costs what a real document does. Every other
// message is an ordinary tool call that never qualifies.
import { byDialect } from './by-dialect.js';
import type { TestDb } from './test-db.js';

export const SUBAGENT_EVERY = 33;

export interface BusyHostShape {
  readonly sessions: number;
  readonly messages: number;
  /** Characters of each subagent message's description. */
  readonly descriptionChars?: number;
  /** Each session's messages contiguous (session i / (messages / sessions)) instead of interleaved. */
  readonly contiguous?: boolean;
}

export const sessionId = (s: number) => `s${String(s).padStart(6, '0')}`;

export async function seedBusyHostStore(db: TestDb, shape: BusyHostShape): Promise<void> {
  const { sessions, messages } = shape;
  const pad = shape.descriptionChars ?? 400;
  const session = shape.contiguous ? `(i / ${Math.ceil(messages / sessions)})` : `(i % ${sessions})`;
  const metadata = (i: string, repeat: string) =>
    `CASE WHEN ${i} % ${SUBAGENT_EVERY} = 0
       THEN '{"tool_call_id":"tc' || ${i} || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"status":"completed","description":"' || ${repeat} || '","total_tokens":' || (${i} + 1) || '}}}'
       ELSE '{"tool_call_id":"x' || ${i} || '","status":"completed","normalized":{"kind":"read","path":"src/file' || (${i} % 97) || '.ts"}}' END`;
  await db.exec(
    byDialect(db.dialect, {
      sqlite: `
        INSERT INTO task_sessions (id, task_id, created_at, updated_at)
          WITH RECURSIVE c(s) AS (SELECT 0 UNION ALL SELECT s + 1 FROM c WHERE s < ${sessions - 1})
          SELECT 's' || substr('000000' || s, -6), 'task-' || s, '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00' FROM c;
        INSERT INTO task_session_messages (id, task_session_id, task_id, content, metadata, created_at, updated_at)
          WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${messages - 1})
          SELECT 'm' || i, 's' || substr('000000' || ${session}, -6), 'task-' || ${session}, 'message ' || i,
                 ${metadata('i', `replace(hex(zeroblob(${Math.ceil(pad / 2)})), '0', 'd')`)},
                 strftime('%Y-%m-%d %H:%M:%S', 1767225600 + i, 'unixepoch') || '+00:00',
                 strftime('%Y-%m-%d %H:%M:%S', 1767225600 + i, 'unixepoch') || '+00:00'
            FROM c;`,
      postgres: `
        INSERT INTO task_sessions (id, task_id, created_at, updated_at)
          SELECT 's' || lpad(s::text, 6, '0'), 'task-' || s, timestamp '2026-01-01', timestamp '2026-01-01'
            FROM generate_series(0, ${sessions - 1}) AS s;
        INSERT INTO task_session_messages (id, task_session_id, task_id, content, metadata, created_at, updated_at)
          SELECT 'm' || i, 's' || lpad(${session}::text, 6, '0'), 'task-' || ${session}, 'message ' || i,
                 ${metadata('i', `repeat('d', ${pad})`)},
                 timestamp '2026-01-01' + i * interval '1 second', timestamp '2026-01-01' + i * interval '1 second'
            FROM generate_series(0, ${messages - 1}) AS i;
        ANALYZE task_sessions;
        ANALYZE task_session_messages;`,
    }),
  );
}

/** The tool_call_ids of the qualifying messages still in the store (their sessions survive: the host's FK cascades). */
export async function survivingQualifyingToolCalls(db: TestDb): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM task_session_messages WHERE id LIKE 'm%' AND metadata LIKE '%"kind":"subagent_task"%' ORDER BY id`,
  );
  return rows.map((r) => `tc${r.id.slice(1)}`).sort();
}

/** The tool_call_ids the backfill wrote, one per row. */
export async function backfilledToolCalls(db: TestDb): Promise<string[]> {
  const rows = await db.query<{ tool_call_id: string }>(`SELECT tool_call_id FROM task_session_subagents WHERE source = 'backfill'`);
  return rows.map((r) => r.tool_call_id).sort();
}
