// Issue 32 item 5: the chunked backfill measured at scale on PostgreSQL, one store per child run
// (`tsx scripts/bench/scale-measure.ts --url URL --runs n`), printing one JSON line:
//   - the backfill step's time (runMigrations() on the reset store, default pacing, no
//     progress callback), and per message;
//   - the longest transaction and the longest statement the migrating connections held, sampled
//     every 20 ms from pg_stat_activity (a lower bound within 20 ms);
//   - this process's peak RSS over the backfill (VmHWM reset first), and the migrating
//     backends' peak private memory (RssAnon, sampled: ./backend-memory.ts);
//   - a host writer's worst latency during the backfill: on its own connection, every 10 ms,
//     it creates a session with a message, updates an old session's updated_at, and deletes
//     the session it created two rounds before (its messages by cascade), each timed; its rows
//     are removed afterwards, so the cached store stays as generated.
import { parseArgs } from 'node:util';
import { MIGRATION_STEP } from '../../src/index.js';
import { clientFor } from '../lib/postgres-database.js';
import { readPostgresManifest } from './lib/synthetic-store.js';
import { emptyMeasurement, startRun, statusKb } from './scale-measurement.js';
import { postgresTarget } from './store-targets.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: 'string' }, runs: { type: 'string', default: '1' } } });
  const url = values.url!;
  const manifest = (await readPostgresManifest(url))!;
  const target = await postgresTarget(url, manifest);
  const observer = clientFor(url);
  const writer = clientFor(url);
  await observer.connect();
  await writer.connect();
  const observerPid = (await observer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  const writerPid = (await writer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  const oldSessions = (await writer.query('SELECT id FROM task_sessions ORDER BY id LIMIT 100')).rows.map((r: { id: string }) => r.id);
  const out = emptyMeasurement(manifest.profile);
  const latencies: number[] = [];
  try {
    await target.reset();
    await target.floor(); // warm, as the bench's backfill rows do
    for (let r = 0; r < Number(values.runs); r++) {
      await startRun(target, out);
      const memory = await target.sampleServerMemory();
      let running = true;
      // The migrating backends: every client backend of this database but ours.
      const sampling = (async () => {
        while (running) {
          const rows = (
            await observer.query(
              `SELECT EXTRACT(EPOCH FROM (clock_timestamp() - xact_start)) * 1000 AS tx, EXTRACT(EPOCH FROM (clock_timestamp() - query_start)) * 1000 AS st, state
                 FROM pg_stat_activity
                WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> ALL($1::int[]) AND xact_start IS NOT NULL`,
              [[observerPid, writerPid]],
            )
          ).rows as { tx: string; st: string; state: string }[];
          for (const row of rows) {
            out.longestTransactionMs = Math.max(out.longestTransactionMs, Number(row.tx));
            if (row.state === 'active') out.longestStatementMs = Math.max(out.longestStatementMs, Number(row.st));
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const writing = (async () => {
        const created: string[] = [];
        for (let i = 0; running; i++) {
          const id = `writer-${r}-${i}`;
          const t0 = performance.now();
          try {
            await writer.query(`INSERT INTO task_sessions (id, task_id, state, created_at, updated_at) VALUES ($1, 'writer-task', 'RUNNING', now(), now())`, [
              id,
            ]);
            await writer.query(
              `INSERT INTO task_session_messages (id, task_session_id, task_id, type, content, metadata, created_at) VALUES ($1, $2, 'writer-task', 'message', 'hello', NULL, now())`,
              [`${id}-m`, id],
            );
            await writer.query(`UPDATE task_sessions SET updated_at = now() WHERE id = $1`, [oldSessions[i % oldSessions.length]]);
            created.push(id);
            if (created.length > 2) await writer.query('DELETE FROM task_sessions WHERE id = $1', [created.shift()]);
          } catch {
            out.writer.failures++;
          }
          latencies.push(performance.now() - t0);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const t = performance.now();
      const report = await target.store().runMigrations();
      const elapsed = performance.now() - t;
      running = false;
      await Promise.all([sampling, writing]);
      const step = report.steps.find((s) => s.name === MIGRATION_STEP.backfillSubagentContexts);
      if (!report.ok || step?.status !== 'applied') throw new Error(`backfill not applied: ${JSON.stringify(report.steps)}`);
      out.backfillMs.push(step.ms ?? elapsed);
      out.clientPeakRssKb = Math.max(out.clientPeakRssKb, statusKb('VmHWM'));
      const mem = await memory.stop();
      out.backendPeakAnonKb = Math.max(out.backendPeakAnonKb ?? 0, mem.peakAnonKb ?? 0);
      out.rows = await target.count();
      await writer.query(`DELETE FROM task_sessions WHERE id LIKE 'writer-%'`);
    }
    latencies.sort((a, b) => a - b);
    out.writer.ops = latencies.length;
    out.writer.worstMs = latencies.at(-1) ?? 0;
    out.writer.p99Ms = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
    await target.reset();
  } finally {
    await writer.query(`DELETE FROM task_sessions WHERE id LIKE 'writer-%'`).catch(() => {});
    await observer.end();
    await writer.end();
    await target.close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`scale-measure: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
