// A PostgreSQL-native host may keep task_session_messages.metadata as jsonb or json rather than
// the TEXT of schema/host/postgres (docs/host-tables.md). The statements applied text functions
// to the column (strpos, octet_length, replace, = ''), so on such a host the backfill failed on
// every boot with 42883 (function octet_length(jsonb) does not exist; json alike), the store
// never activated and health answered not_activated (a review, 2026-12-08). The metadata
// fragments now read x::text (a no-op on TEXT). Here the same documents are seeded in a TEXT and
// in a jsonb, json and varchar column, and both walks of the backfill, its mark, health's
// shortfall for a subagent missed after activation, and the optional host index (built on
// metadata::text; on varchar its predicate deparses as on jsonb, which ensureHostIndex() once
// took for a foreign index) are compared. jsonb normalises a document (the last of duplicate
// keys, its own whitespace), which the TEXT path's ::jsonb reads the same way. PostgreSQL only:
// SQLite has no jsonb column type (a declared type is an affinity; its JSON functions read text).
import { afterEach, describe, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore, type HealthReport } from '../src/index.js';
import { parseInstant } from '../src/instant.js';
import { postgresWindow } from '../src/postgres/health.js';
import { steppingClock } from './helpers/clock.js';
import { SECOND } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { explainGenerated } from './helpers/postgres-explain.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

type Column = 'text' | 'jsonb' | 'json' | 'varchar';
type Walk = 'windows' | 'sessions';

const ns = (iso: string) => parseInstant(iso)!;
const task = (description: string, extra: Record<string, unknown> = {}) => ({ status: 'completed', description, ...extra });

/** [session, message id, metadata, created_at]: what the backfill must read alike from each column type. */
const HISTORY: readonly [string, string, string | null, string][] = [
  ['s1', 'm01', subagentMetadata({ toolCallId: 'tc-1', toolStatus: 'in_progress', subagent: task('old', { total_tokens: 5 }) }), '2026-06-01 10:00:00'],
  // The newer message wins (AC-21b); 1e3 is the integer 1000 however spelled (AC-23).
  [
    's1',
    'm02',
    '{"tool_call_id":"tc-1","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"total_tokens":1e3,"tool_use_count":0}}}',
    '2026-06-01 11:00:00',
  ],
  // Duplicate keys: jsonb keeps the last, as the TEXT path's ::jsonb does.
  [
    's1',
    'm03',
    '{"tool_call_id":"tc-first","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"model":"a"}},"tool_call_id":"tc-dup"}',
    '2026-06-02 09:00:00',
  ],
  // Whitespace and an escaped letter: jsonb writes its own spacing and the letter itself.
  [
    's1',
    'm04',
    JSON.stringify({ tool_call_id: 'tc-pretty', normalized: { kind: 'subagent_task', subagent_task: { is_async: true } } }, null, 2).replace(
      '"tc-pretty"',
      '"tc-pr\\u0065tty"',
    ),
    '2026-06-02 10:00:00',
  ],
  // Documents that qualify nowhere: JSON null, a string, an array, another kind, SQL NULL.
  ['s2', 'm05', 'null', '2026-06-03 09:00:00'],
  ['s2', 'm06', '"subagent_task"', '2026-06-03 09:01:00'],
  ['s2', 'm07', '[{"tool_call_id":"tc-array","normalized":{"kind":"subagent_task"}}]', '2026-06-03 09:02:00'],
  ['s2', 'm08', '{"tool_call_id":"tc-other","normalized":{"kind":"tool","note":"subagent_task"}}', '2026-06-03 09:03:00'],
  ['s2', 'm09', null, '2026-06-03 09:04:00'],
  ['s2', 'm10', subagentMetadata({ toolCallId: 'tc-2', toolStatus: 'failed', subagent: task('two', { duration_ms: 42 }) }), '2026-06-03 10:00:00'],
  ['s3', 'm11', subagentMetadata({ toolCallId: 'tc-3', toolStatus: 'completed', subagent: task('three') }), '2026-06-05 09:00:00'],
];
/**
 * A \u0000 escape: jsonb refuses the document (so a jsonb column cannot hold it); TEXT and json
 * keep it as written. The backfill reads it as '{}' whatever the column (docs/migrations.md): no row.
 */
const NUL_DOCUMENT: [string, string, string, string] = [
  's2',
  'm12',
  '{"tool_call_id":"tc-nul","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"description":"a\\u0000b"}}}',
  '2026-06-03 11:00:00',
];
const history = (column: Column) => (column === 'jsonb' ? HISTORY : [...HISTORY, NUL_DOCUMENT]);
const EXPECTED_TOOL_CALLS = (_column: Column) => [
  ['s1', 'tc-1'],
  ['s1', 'tc-dup'],
  ['s1', 'tc-pretty'],
  ['s2', 'tc-2'],
  ['s3', 'tc-3'],
];
const THROUGH = '2026-06-05T09:00:00.000000000Z';

async function open(column: Column): Promise<TestDb> {
  const db = await openTestDb('postgres', 'package');
  if (column !== 'text') await db.exec(`ALTER TABLE task_session_messages ALTER COLUMN metadata TYPE ${column} USING metadata::${column}`);
  for (const s of ['s1', 's2', 's3']) await insertSession(db, s);
  for (const [sessionId, id, metadata, createdAt] of history(column)) await insertMessage(db, { id, sessionId, metadata, createdAt, updatedAt: createdAt });
  return db;
}

interface Outcome {
  rows: Record<string, unknown>[];
  through: string | undefined;
  health: HealthReport;
}

/** Migrate at 2026-06-15T12:00Z (one-day windows), then messages the writer missed at 13:00Z, and health at 14:00Z. */
async function migrateAndCheck(db: TestDb, walk: Walk): Promise<Outcome> {
  const pool = db.pool!;
  const report = await createPostgresStore(pool, { clock: steppingClock(ns('2026-06-15T12:00:00Z'), SECOND) }).runMigrations({
    backfillChunk: { walk, pauseMs: 0, maxWindowMs: 86_400_000, maxSessions: 1 },
  });
  expect(report.steps.filter((s) => s.status === 'failed').map((s) => `${s.name}: ${s.error}`)).toEqual([]);
  const rows = await backfilledRows(db);
  const through = (await metaKeys(db))[ACTIVATION_KEYS.backfillThrough];
  // After capture: one subagent the live writer missed (pretty-printed, a duplicate key), and
  // messages that are no subagent (JSON null, SQL NULL, another kind).
  const missed = JSON.stringify({ tool_call_id: 'tc-x', normalized: { kind: 'subagent_task', subagent_task: {} } }, null, 1);
  const after: [string, string | null][] = [
    ['m-missed', missed.replace('{', '{"tool_call_id": 7,')],
    ['m-null', 'null'],
    ['m-none', null],
    ['m-other', '{"tool_call_id":"tc-y","normalized":{"kind":"tool","x":"subagent_task"}}'],
  ];
  for (const [id, metadata] of after) await insertMessage(db, { id, sessionId: 's3', metadata, createdAt: '2026-06-15 13:00:00' });
  return { rows, through, health: await healthAt(db) };
}

const healthAt = (db: TestDb) => createPostgresStore(db.pool!, { clock: steppingClock(ns('2026-06-15T14:00:00Z'), SECOND) }).checkHealth();

describe('host metadata column jsonb, json or varchar [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  /** The TEXT store's outcome per walk, computed once: the reference for the other columns. */
  const reference = new Map<Walk, Outcome>();
  async function textOutcome(walk: Walk): Promise<Outcome> {
    if (!reference.has(walk)) {
      const text = await open('text');
      try {
        reference.set(walk, await migrateAndCheck(text, walk));
      } finally {
        await text.close();
      }
    }
    return reference.get(walk)!;
  }

  describe.each(['jsonb', 'json', 'varchar'] as const)('metadata %s', (column) => {
    it.each(['windows', 'sessions'] as const)('the %s walk writes the single statement’s rows and mark; health counts the missed subagent', async (walk) => {
      db = await open(column);
      const single = await singleStatementRows(db);
      expect(single.rows.map((r) => [r.task_session_id, r.tool_call_id])).toEqual(EXPECTED_TOOL_CALLS(column));
      expect(single.through).toBe(THROUGH);

      const out = await migrateAndCheck(db, walk);
      expect(out.rows).toEqual(single.rows);
      expect(out.through).toBe(THROUGH);
      expect(out.health).toMatchObject({ shortfall: 1, excess: 0, collisions: 0, verdict: 'shortfall' });

      // The same documents in a TEXT column give the same rows, mark and health (jsonb lacks the
      // one document it cannot hold).
      const text = await textOutcome(walk);
      const comparable = (rows: Record<string, unknown>[]) => rows.filter((r) => column !== 'jsonb' || r.tool_call_id !== 'tc-nul');
      expect(out.rows).toEqual(comparable(text.rows));
      expect(out.through).toBe(text.through);
      expect(out.health).toEqual(text.health);
    });

    it('the rows read the documents as the TEXT path does: the newest message, metrics, duplicate keys, escapes', async () => {
      db = await open(column);
      await migrateAndCheck(db, 'windows');
      const rows = await db.query<Record<string, unknown>>(
        `SELECT tool_call_id, tool_status, description, model, is_async, total_tokens::int AS total_tokens, tool_use_count::int AS tool_use_count,
                duration_ms::int AS duration_ms, observed_at::text AS observed_at
           FROM task_session_subagents ORDER BY task_session_id, tool_call_id`,
      );
      expect(rows).toEqual([
        {
          tool_call_id: 'tc-1',
          tool_status: 'completed',
          description: null,
          model: null,
          is_async: 0,
          total_tokens: 1000,
          tool_use_count: 0,
          duration_ms: null,
          observed_at: '2026-06-01 11:00:00',
        },
        {
          tool_call_id: 'tc-dup',
          tool_status: 'completed',
          description: null,
          model: 'a',
          is_async: 0,
          total_tokens: null,
          tool_use_count: null,
          duration_ms: null,
          observed_at: '2026-06-02 09:00:00',
        },
        {
          tool_call_id: 'tc-pretty',
          tool_status: null,
          description: null,
          model: null,
          is_async: 1,
          total_tokens: null,
          tool_use_count: null,
          duration_ms: null,
          observed_at: '2026-06-02 10:00:00',
        },
        {
          tool_call_id: 'tc-2',
          tool_status: 'failed',
          description: 'two',
          model: null,
          is_async: 0,
          total_tokens: null,
          tool_use_count: null,
          duration_ms: 42,
          observed_at: '2026-06-03 10:00:00',
        },
        {
          tool_call_id: 'tc-3',
          tool_status: 'completed',
          description: 'three',
          model: null,
          is_async: 0,
          total_tokens: null,
          tool_use_count: null,
          duration_ms: null,
          observed_at: '2026-06-05 09:00:00',
        },
      ]);
    });

    it('the optional host index is built on the column read as text; health answers the same through it', async () => {
      db = await open(column);
      await migrateAndCheck(db, 'windows');
      const without = await healthAt(db);
      expect(await db.store().ensureHostIndex()).toMatchObject({ outcome: 'created' });
      expect(await db.store().ensureHostIndex()).toMatchObject({ outcome: 'present' });
      const [def] = await db.query<{ d: string }>(`SELECT pg_get_indexdef('idx_messages_subagent_candidates'::regclass) AS d`);
      expect(def.d).toContain(`WHERE (strpos((metadata)::text, 'subagent_task'::text) > 0)`);
      expect(await healthAt(db)).toEqual(without);
      // The anti-joins' prefilter implies the predicate (both read metadata::text), so the
      // planner can read the window's candidates through it (sequential scans off: 15 messages).
      const pool = poolFor({ connectionString: db.location, options: '-c enable_seqscan=off', max: 1 });
      try {
        for (const query of [postgresQueries.countShortfallSinceCapture, postgresQueries.countExcessSinceCapture]) {
          const nodes = await explainGenerated(pool, query, postgresWindow(ns('2026-06-15T12:00:00Z')), false);
          expect(nodes.map((n) => n['Index Name'])).toContain('idx_messages_subagent_candidates');
        }
      } finally {
        await pool.end();
      }
    });
  });
});
