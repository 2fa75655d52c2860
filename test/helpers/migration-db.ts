// Inspection and seeding for the migration tests: the schema facts AC-33 names, read
// independently of the package's own probe (queries/<dialect>/observe_subagent_table_shape),
// plus the activation keys, the pre-amendment rows and the report's steps.
import type { MigrationReport } from '../../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../../src/migrations/backfill-step.js';
import type { Dialect, TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';

/** AC-33 clauses 1–3, read from the catalog by SQL written for the tests. */
export interface EndStateFacts {
  executionColumnNotNull: boolean;
  threeColumnUnique: boolean;
  twoColumnUnique: boolean;
}

export async function endStateFacts(db: TestDb): Promise<EndStateFacts> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const [col] = await db.query<{ n: number }>(
      `SELECT count(*) AS n FROM pragma_table_info('task_session_subagents') WHERE name = 'agent_execution_id' AND "notnull" = 1`,
    );
    const uniques = await db.query<{ cols: string }>(
      `SELECT (SELECT group_concat(ii.name, ',' ORDER BY ii.seqno) FROM pragma_index_info(il.name) AS ii) AS cols
         FROM pragma_index_list('task_session_subagents') AS il WHERE il."unique" = 1`,
    );
    const cols = uniques.map((u) => u.cols);
    return {
      executionColumnNotNull: Number(col.n) === 1,
      threeColumnUnique: cols.includes('task_session_id,agent_execution_id,tool_call_id'),
      twoColumnUnique: cols.some((c) => c.split(',').sort().join(',') === 'task_session_id,tool_call_id'),
    };
  }
  const [col] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_name = 'task_session_subagents' AND column_name = 'agent_execution_id' AND is_nullable = 'NO'`,
  );
  const defs = await db.query<{ def: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index AS i
      WHERE i.indrelid = 'task_session_subagents'::regclass AND i.indisunique`,
  );
  const keyCols = defs.map((d) => /\(([^)]*)\)/.exec(d.def)?.[1] ?? '');
  return {
    executionColumnNotNull: col.n === 1,
    threeColumnUnique: keyCols.includes('task_session_id, agent_execution_id, tool_call_id'),
    twoColumnUnique: keyCols.some((c) => c.split(', ').sort().join(',') === 'task_session_id,tool_call_id'),
  };
}

/** Every index on the table with its definition (AC-33 clause 4 compares two of these). */
export async function indexSet(db: TestDb): Promise<string[]> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const rows = await db.query<{ name: string; uniq: number; partial: number; cols: string; sql: string | null }>(
      `SELECT il.name, il."unique" AS uniq, il.partial,
              (SELECT group_concat(ii.name, ',' ORDER BY ii.seqno) FROM pragma_index_info(il.name) AS ii) AS cols,
              (SELECT s.sql FROM sqlite_schema AS s WHERE s.type = 'index' AND s.name = il.name) AS sql
         FROM pragma_index_list('task_session_subagents') AS il ORDER BY il.name`,
    );
    return rows.map((r) => `${r.name} unique=${r.uniq} partial=${r.partial} (${r.cols}) ${r.sql ?? ''}`);
  }
  const rows = await db.query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'task_session_subagents' ORDER BY indexname`);
  return rows.map((r) => r.def);
}

/** The table's column definitions (name, type, nullability, default), order-independent. */
export async function columnSet(db: TestDb): Promise<string[]> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const rows = await db.query<{ name: string; type: string; nn: number; dflt: string | null }>(
      `SELECT name, type, "notnull" AS nn, dflt_value AS dflt FROM pragma_table_info('task_session_subagents') ORDER BY name`,
    );
    return rows.map((r) => `${r.name} ${r.type} notnull=${r.nn} default=${r.dflt}`);
  }
  const rows = await db.query<{ name: string; type: string; nullable: string; dflt: string | null }>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt
       FROM information_schema.columns WHERE table_name = 'task_session_subagents' ORDER BY column_name`,
  );
  return rows.map((r) => `${r.name} ${r.type} nullable=${r.nullable} default=${r.dflt}`);
}

export async function tableExists(db: TestDb, name: string): Promise<boolean> {
  const rows = await byDialect(db.dialect, {
    sqlite: () => db.query(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = $1`, [name]),
    postgres: () => db.query(`SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = 'r'`, [name]),
  })();
  return rows.length > 0;
}

/** kandev_meta as stored, verbatim. */
export async function metaKeys(db: TestDb): Promise<Record<string, string>> {
  const rows = await db.query<{ key: string; value: string }>(`SELECT key, value FROM kandev_meta ORDER BY key`);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** The backfill's phase-1 keys (SQLite stages its candidates first; PostgreSQL has none), sorted. */
export function stageProgressKeys(dialect: Dialect): string[] {
  const { stageAnchor, stageBound, stageCursor, stageSchema } = BACKFILL_PROGRESS_KEYS;
  return byDialect(dialect, { sqlite: [stageAnchor, stageBound, stageCursor, stageSchema].sort(), postgres: [] });
}

export function stepStatuses(report: MigrationReport): Record<string, string> {
  return Object.fromEntries(report.steps.map((s) => [s.name, s.status]));
}

/** Pre-amendment rows as the earlier build wrote them, including NULL metrics and timestamps in several host forms. */
export async function seedPreAmendmentRows(db: TestDb): Promise<void> {
  const ts = (sqlite: string, postgres: string) => byDialect(db.dialect, { sqlite, postgres });
  const rows: unknown[][] = [
    // an async_launched dispatch: no metrics at all (NULL, never 0), never settled
    [
      'row-a',
      's1',
      'task-s1',
      'turn-1',
      'toolu_a',
      null,
      'general-purpose',
      'Explore',
      'agent-a',
      null,
      'claude-opus-5[1m]',
      'async_launched',
      'completed',
      1,
      null,
      null,
      null,
      'backfill',
      ts('2026-07-30 01:39:37.271235+00:00', '2026-07-30 01:39:37.271235'),
      null,
      ts('2026-07-30 01:39:37.2712+02:00', '2026-07-30 01:39:37.2712'),
    ],
    // a completed subagent with every metric, settled, nested
    [
      'row-b',
      's1',
      'task-s1',
      null,
      'toolu_b',
      'toolu_a',
      'security-reviewer',
      'Review',
      'agent-b',
      'ses_child',
      'm',
      'completed',
      'completed',
      0,
      275717,
      0,
      61234,
      'live',
      ts('2026-07-30T01:40:00Z', '2026-07-30 01:40:00'),
      ts('2026-07-30 01:41:00.5+00:00', '2026-07-30 01:41:00.5'),
      ts('2026-07-30 01:41:00.5+00:00', '2026-07-30 01:41:00.5'),
    ],
    // the same tool_call_id in another session
    [
      'row-c',
      's2',
      'task-s2',
      'turn-9',
      'toolu_a',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      'in_progress',
      0,
      null,
      3,
      null,
      'live',
      ts('2026-07-29 23:00:00.000001-05:00', '2026-07-30 04:00:00.000001'),
      null,
      ts('2026-07-29 23:00:00.000001-05:00', '2026-07-30 04:00:00.000001'),
    ],
  ];
  for (const r of rows) {
    await db.query(
      `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, tool_call_id, parent_tool_call_id, subagent_type,
         description, agent_id, child_session_id, model, agent_status, tool_status, is_async, total_tokens, tool_use_count,
         duration_ms, source, observed_at, settled_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
      r,
    );
  }
}

/** The pre-amendment table's columns (schema/legacy/), every one of which the upgrade keeps byte-identical. */
export const LEGACY_COLUMNS = [
  'id',
  'task_session_id',
  'task_id',
  'turn_id',
  'tool_call_id',
  'parent_tool_call_id',
  'subagent_type',
  'description',
  'agent_id',
  'child_session_id',
  'model',
  'agent_status',
  'tool_status',
  'is_async',
  'total_tokens',
  'tool_use_count',
  'duration_ms',
  'source',
  'observed_at',
  'settled_at',
  'updated_at',
];

/**
 * Every pre-amendment column of every row, as exact stored text: SQLite quote() keeps the
 * storage class and the bytes; PostgreSQL ::text renders the stored value (AC-33 clause 5).
 */
export async function rawRows(db: TestDb): Promise<Record<string, unknown>[]> {
  const select = LEGACY_COLUMNS.map((c) => byDialect(db.dialect, { sqlite: `quote(${c}) AS ${c}`, postgres: `${c}::text AS ${c}` })).join(', ');
  return db.query(`SELECT ${select} FROM task_session_subagents ORDER BY id`);
}

/**
 * Runs one host-side INSERT with foreign-key enforcement off, as a host that never enabled it
 * could have written it (SQLite: the connection pragma; PostgreSQL: session_replication_role,
 * which skips the FK triggers for that session).
 */
export async function insertWithoutForeignKeys(db: TestDb, sql: string, params: unknown[]): Promise<void> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    db.sqlite!.pragma('foreign_keys = OFF');
    try {
      await db.query(sql, params);
    } finally {
      db.sqlite!.pragma('foreign_keys = ON');
    }
    return;
  }
  const client = await db.pool!.connect();
  try {
    await client.query(`SET session_replication_role = replica`);
    await client.query(sql, params);
  } finally {
    await client.query(`RESET session_replication_role`);
    client.release();
  }
}
