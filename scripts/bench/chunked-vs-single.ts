// Issue 32: the chunked backfill against the single statement (./single-statement.ts) on the
// cached stores, alternating, in one process, so the ratio is within one run (BENCHMARKS.md,
// "Issue 32"). Not a section of `npm run bench`: a profiling tool, printing a line per run.
//   tsx scripts/bench/chunked-vs-single.ts --dialect sqlite|postgres --profiles sparse-1m,dense-1m --runs 3
//     [--target ms] [--max sessions]   the pacing overrides (backfillChunk)
//   PAUSE=ms                           backfillChunk.pauseMs
//   PROGRESS=1                         count the chunks through onBackfillProgress (which adds a count query per chunk to the timing)
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensurePostgresStore, ensureSqliteStore, readPostgresManifest, readSqliteManifest } from './lib/synthetic-store.js';
import { clientFor } from '../lib/postgres-database.js';
import { postgresTarget, sqliteTarget } from './store-targets.js';
import { postgresSingleStatement, sqliteSingleStatement } from './single-statement.js';
import { MIGRATION_STEP } from '../../src/index.js';
import { byDialect, dialectNamed } from '../../src/dialect.js';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string' },
    profiles: { type: 'string' },
    runs: { type: 'string', default: '3' },
    target: { type: 'string' },
    max: { type: 'string' },
  },
});
const cacheDir = join(process.cwd(), '.bench-cache');
const chunk = {
  ...(process.env.PAUSE ? { pauseMs: Number(process.env.PAUSE) } : {}),
  ...(values.target ? { targetMs: Number(values.target) } : {}),
  ...(values.max ? { maxSessions: Number(values.max) } : {}),
};

async function main() {
  const dialect = dialectNamed(values.dialect ?? 'sqlite');
  if (!dialect) throw new Error(`--dialect: sqlite or postgres, not ${values.dialect}`);
  const server = await byDialect(dialect, { sqlite: async () => undefined, postgres: () => startEmbeddedPostgres({ dataDir: join(cacheDir, 'pg') }) })();
  try {
    for (const name of values.profiles!.split(',') as StoreProfileName[]) {
      const p = STORE_PROFILES[name];
      let target,
        single: () => Promise<number>,
        close = async () => {};
      if (server) {
        const url = await ensurePostgresStore(server.url, server.urlFor, p);
        target = await postgresTarget(url, (await readPostgresManifest(url))!);
        const c = clientFor(url);
        await c.connect();
        single = () => postgresSingleStatement(c);
        close = async () => void (await c.end());
      } else {
        const file = await ensureSqliteStore(cacheDir, p);
        target = sqliteTarget(file, readSqliteManifest(file)!);
        const db = new Database(file);
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
        single = async () => sqliteSingleStatement(db);
        close = async () => void db.close();
      }
      await target.reset();
      await target.floor();
      for (let r = 0; r < Number(values.runs); r++) {
        await target.reset();
        await target.store().runMigrations({ backfill: 'defer' });
        let t = performance.now();
        const rows = await single();
        const singleMs = performance.now() - t;
        await target.reset();
        await target.store().runMigrations({ backfill: 'defer' });
        let chunks = 0;
        t = performance.now();
        const report = await target
          .store()
          .runMigrations({ backfillChunk: chunk, ...(process.env.PROGRESS ? { onBackfillProgress: () => void chunks++ } : {}) });
        const all = performance.now() - t;
        const step = report.steps.find((s) => s.name === MIGRATION_STEP.backfillSubagentContexts)!;
        console.log(
          `${values.dialect} ${name} run ${r}: single ${singleMs.toFixed(0)} ms (${rows} rows); chunked step ${step.ms.toFixed(0)} ms (pass ${all.toFixed(0)}, ${await target.count()} rows${chunks ? `, ${chunks} chunks` : ''}) ratio ${(step.ms / singleMs).toFixed(2)}`,
        );
      }
      await target.reset();
      await target.close();
      await close();
    }
  } finally {
    await server?.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
