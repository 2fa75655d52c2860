// Issue 32 item 5 on SQLite: the chunked backfill measured on one cached store per child run
// (`tsx scripts/bench/scale-measure-sqlite.ts --file F --runs n`), printing one JSON line with
// the fields of the PostgreSQL measure (./scale-measure.ts) that SQLite has:
//   - the backfill step's time (runMigrations() on the reset store, default pacing), and per
//     message. A progress callback is passed: it is how the chunks are timed here (no other
//     connection can see a SQLite transaction), and it adds its per-chunk counts to the time;
//   - the longest chunk, from one progress call to the next (its transaction and the pause
//     after it: an upper bound of the longest transaction, which is one statement plus the
//     cursor's);
//   - this process's peak RSS over the backfill (VmHWM reset first): SQLite's memory is in it;
//   - a host writer's worst latency during the backfill, from another process
//     (./sqlite-host-writer.ts).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { MIGRATION_STEP } from '../../src/index.js';
import { readSqliteManifest } from './lib/synthetic-store.js';
import { emptyMeasurement, startRun, statusKb, type ScaleMeasurement } from './scale-measurement.js';
import { sqliteTarget } from './store-targets.js';

type WriterReport = ScaleMeasurement['writer'];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { file: { type: 'string' }, runs: { type: 'string', default: '1' } } });
  const file = values.file!;
  const manifest = readSqliteManifest(file)!;
  const target = sqliteTarget(file, manifest);
  const out = emptyMeasurement(manifest.profile);
  try {
    await target.reset();
    await target.floor(); // warm, as the bench's backfill rows do
    for (let r = 0; r < Number(values.runs); r++) {
      await startRun(target, out);
      const writer = fork(new URL('./sqlite-host-writer.ts', import.meta.url), [file], { execArgv: ['--import', 'tsx'] });
      await once(writer, 'message'); // 'ready': the writer writes from before the first chunk
      let last = 0;
      const migrated = await target.store().runMigrations({
        onBackfillProgress: (p) => {
          out.longestTransactionMs = Math.max(out.longestTransactionMs, p.ms - last);
          last = p.ms;
        },
      });
      const reported = once(writer, 'message');
      writer.send('stop');
      const [w] = (await reported) as [WriterReport];
      const step = migrated.steps.find((s) => s.name === MIGRATION_STEP.backfillSubagentContexts);
      if (!migrated.ok || step?.status !== 'applied') throw new Error(`backfill not applied: ${JSON.stringify(migrated.steps)}`);
      out.backfillMs.push(step.ms!);
      out.clientPeakRssKb = Math.max(out.clientPeakRssKb, statusKb('VmHWM'));
      out.rows = await target.count();
      out.writer = {
        ops: out.writer.ops + w.ops,
        worstMs: Math.max(out.writer.worstMs, w.worstMs),
        p99Ms: Math.max(out.writer.p99Ms, w.p99Ms),
        failures: out.writer.failures + w.failures,
      };
    }
    out.longestStatementMs = Number.NaN; // not observable from outside a SQLite connection (null in the JSON)
    await target.reset();
  } finally {
    await target.close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`scale-measure-sqlite: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
