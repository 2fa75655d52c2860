// Issue 32, SQLite: a prototype of a backfill walk in storage order, against 0.2's single
// statement and the package's session walk, on a cached store. Not a section of `npm run bench`
// and not what the package runs: a profiling tool, printing a line per run
// (BENCHMARKS.md, "SQLite: a staged walk in storage order").
//   tsx scripts/bench/sqlite-staged-walk.ts --profiles sparse-1m,dense-1m [--runs 3] [--range 100000] [--sessions 600]
//
// The staged walk, two phases, each statement run on its own as the package runs its chunks
// (but here all in one transaction, rolled back: no commit and no pause between them):
//   1. rowid ranges --range wide (as many messages where rowids have no gaps), in storage order:
//      the package's chunk statement up to its `qualifying` CTE (prefilter, JSON validity,
//      AC-21/21a), its rows kept in a staging table;
//   2. chunks of --sessions session keys over the staging table: the same statement from its
//      `winner` CTE on (AC-21b's winner per session and tool call, the fields read from the
//      winning message by rowid, the INSERT).
// Every variant runs in a transaction that is rolled back; the tool fails unless all three
// write the same rows (every column but the random id).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensureSqliteStore, readSqliteManifest } from './lib/synthetic-store.js';
import { sqliteSingleStatement } from './single-statement.js';
import { sqliteTarget } from './store-targets.js';

const { values } = parseArgs({
  options: {
    profiles: { type: 'string', default: 'sparse-1m,dense-1m' },
    runs: { type: 'string', default: '3' },
    range: { type: 'string', default: '100000' },
    sessions: { type: 'string', default: '600' },
  },
});

/** Where the package's chunk statement is cut and re-pointed; a changed statement fails here by name. */
const SESSION_SCAN = 'WHERE m.task_session_id > @after AND m.task_session_id <= @upTo\n';
const WINNER = '), winner AS (';
const STAGED = ['rid', 'id', 'task_session_id', 'tool_call_id', 'created_utc9'].join(', ');

function stagedStatements(db: Database.Database) {
  const text = sqliteQueries.backfillSubagentContexts.sql;
  if (text.split(SESSION_SCAN).length !== 2 || text.split(WINNER).length !== 2)
    throw new Error('sqlite-staged-walk: the backfill statement changed shape; update SESSION_SCAN and WINNER');
  const [head, tail] = text.split(WINNER);
  db.exec(`CREATE TABLE bench_backfill_stage (rid INTEGER, id TEXT, task_session_id TEXT, tool_call_id TEXT, created_utc9 TEXT)`);
  db.exec('CREATE INDEX bench_backfill_stage_session ON bench_backfill_stage (task_session_id)');
  return {
    stage: db.prepare(
      `${head.replace(SESSION_SCAN, 'WHERE m.rowid > @lo AND m.rowid <= @hi\n')})\nINSERT INTO bench_backfill_stage (${STAGED}) SELECT ${STAGED} FROM qualifying`,
    ),
    insert: db.prepare(`WITH qualifying AS (SELECT * FROM bench_backfill_stage WHERE task_session_id > @after AND task_session_id <= @upTo${WINNER}${tail}`),
  };
}

/** (after, upTo] of each chunk of `per` session keys. */
function* sessionChunks(keys: string[], per: number): Generator<{ after: string; upTo: string }> {
  for (let i = 0; i < keys.length; i += per) yield { after: i === 0 ? '' : keys[i - 1], upTo: keys[Math.min(i + per, keys.length) - 1] };
}

async function measure(name: StoreProfileName, runs: number, range: number, per: number): Promise<void> {
  const file = await ensureSqliteStore(join(process.cwd(), '.bench-cache'), STORE_PROFILES[name]);
  const target = sqliteTarget(file, readSqliteManifest(file)!);
  await target.reset();
  await target.store().runMigrations({ backfill: 'defer' });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  try {
    db.exec('DROP TABLE IF EXISTS bench_backfill_stage');
    const staged = stagedStatements(db);
    const keys = db.prepare('SELECT id FROM task_sessions ORDER BY id').pluck().all() as string[];
    const maxRowid = (db.prepare('SELECT COALESCE(max(rowid), 0) AS m FROM task_session_messages').get() as { m: number }).m;
    const rows = () =>
      JSON.stringify(
        (db.prepare('SELECT * FROM task_session_subagents ORDER BY task_session_id, tool_call_id').all() as Array<Record<string, unknown>>).map(
          ({ id: _id, ...row }) => row,
        ),
      );
    const timed = (fn: () => void) => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const t = performance.now();
        fn();
        return { ms: performance.now() - t, rows: rows() };
      } finally {
        if (db.inTransaction) db.exec('ROLLBACK');
      }
    };
    let stageMs = 0;
    const variants = {
      single: () => void sqliteSingleStatement(db),
      walk: () => {
        for (const chunk of sessionChunks(keys, per)) sqliteQueries.backfillSubagentContexts.run(chunk, db);
      },
      staged: () => {
        const t = performance.now();
        for (let lo = 0; lo < maxRowid; lo += range) staged.stage.run({ lo, hi: lo + range });
        stageMs = performance.now() - t;
        for (const chunk of sessionChunks(keys, per)) staged.insert.run(chunk);
      },
    };
    const order = ['single', 'walk', 'staged'] as const;
    for (let r = 0; r < runs; r++) {
      // Each run starts with a different variant, so none always runs on the cache another left.
      const result: Partial<Record<(typeof order)[number], { ms: number; rows: string }>> = {};
      for (let k = 0; k < order.length; k++) {
        const variant = order[(r + k) % order.length];
        result[variant] = timed(variants[variant]);
      }
      const { single, walk, staged: stagedWalk } = result as Required<typeof result>;
      if (JSON.parse(single.rows).length === 0) throw new Error(`${name} run ${r}: the single statement wrote no row`);
      for (const [variant, other] of [
        ['session walk', walk],
        ['staged walk', stagedWalk],
      ] as const)
        if (other.rows !== single.rows) throw new Error(`${name} run ${r}: the ${variant} wrote other rows than the single statement`);
      const ratio = (ms: number) => `${(ms / single.ms).toFixed(2)}×`;
      console.log(
        `${name} run ${r} (${order[r % order.length]} first): single (NOT INDEXED) ${single.ms.toFixed(0)} ms; session walk ${walk.ms.toFixed(0)} ms (${ratio(walk.ms)}); ` +
          `staged walk ${stagedWalk.ms.toFixed(0)} ms (${ratio(stagedWalk.ms)}; phase 1 ${stageMs.toFixed(0)} ms); ${JSON.parse(single.rows).length} rows each`,
      );
    }
  } finally {
    db.exec('DROP TABLE IF EXISTS bench_backfill_stage');
    db.close();
    await target.reset();
    await target.close();
  }
}

async function main() {
  for (const name of values.profiles!.split(',') as StoreProfileName[]) {
    if (!STORE_PROFILES[name]) throw new Error(`--profiles: each one of ${Object.keys(STORE_PROFILES).join(', ')}`);
    await measure(name, Number(values.runs), Number(values.range), Number(values.sessions));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
