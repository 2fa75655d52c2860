// `subagent-context demo`: the package's main job, end to end, on a database of its own.
// Seeds a host history reproducing the spec's sampled store, runs the upgrade
// (runMigrations: the backfill and activation keys), streams live frames the way an
// orchestrator would, then prints the migration report, the keys, the counters, the
// health report and the measurements the feature exists for. Deterministic (seeded data,
// simulated clock); only the step timings vary between runs.
import { formatKeyInstant } from '../instant.js';
import type { HealthReport, Logger } from '../index.js';
import type { DemoDatabase } from './demo-database.js';
import { DemoRefusal } from './demo-database.js';
import { buildDemoHistory } from './demo-history.js';
import { renderDemoReport } from './demo-report.js';
import { streamLiveFrames } from './live-stream.js';
import { openPostgresDemoDatabase } from './postgres-demo-database.js';
import { DEMO_UPGRADE_AT_NS, simulatedClock } from './simulated-clock.js';
import { openSqliteDemoDatabase } from './sqlite-demo-database.js';

export interface DemoOptions {
  /** SQLite file to create (the default when neither is given: DEFAULT_DEMO_SQLITE_FILE). */
  sqlite?: string;
  /** PostgreSQL URL of an empty database. */
  postgres?: string;
  out: NodeJS.WritableStream;
}

export const DEFAULT_DEMO_SQLITE_FILE = 'subagent-context-demo.db';

/**
 * Runs the demo and prints its report to `out`. Resolves to an exit code: 0 when the
 * upgrade succeeded and the health check reads healthy, 1 when either did not or the database
 * could not be opened, 2 when the demo refused the database (it never writes into a
 * database it did not create) or was given both --sqlite and --postgres.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const write = (text: string) => options.out.write(text.endsWith('\n') ? text : `${text}\n`);
  if (options.sqlite && options.postgres) {
    write('subagent-context demo: give either --sqlite FILE or --postgres URL, not both');
    return 2;
  }
  let database: DemoDatabase;
  try {
    database = options.postgres ? await openPostgresDemoDatabase(options.postgres) : openSqliteDemoDatabase(options.sqlite ?? DEFAULT_DEMO_SQLITE_FILE);
  } catch (err) {
    if (err instanceof DemoRefusal) {
      write(`subagent-context demo: refusing to run: ${err.message}`);
      return 2;
    }
    write(`subagent-context demo: cannot open the database: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const started = process.hrtime.bigint();
  try {
    const history = buildDemoHistory();
    await database.createHostTables();
    await database.insertHistory(history.sessions, history.messages);

    const clock = simulatedClock(DEMO_UPGRADE_AT_NS);
    const warnings: string[] = [];
    const logger: Logger = { warn: (fields, msg) => void warnings.push(`${msg} ${JSON.stringify(fields)}`) };
    const store = database.store({ clock: clock.read, logger });

    const migration = await store.runMigrations();
    const [first, second] = history.fannedOutSessionIds.map((id) => history.sessions.find((s) => s.id === id)!).filter((s) => s.agent === 'claude');
    const quiet = history.sessions.find((s) => !history.fannedOutSessionIds.includes(s.id))!;
    const live = await streamLiveFrames(store, database, clock, {
      sessionId: first.id,
      taskId: first.taskId,
      otherSessionId: second.id,
      otherTaskId: second.taskId,
      thirdSessionId: quiet.id,
    });
    const counters = store.counters();
    let health: HealthReport | { error: string };
    try {
      health = await store.checkHealth();
    } catch (err) {
      health = { error: err instanceof Error ? err.message : String(err) };
    }
    const figures = await database.readFigures();
    const reusedRows = (await store.listBySession(live.reused.sessionId)).filter((r) => r.tool_call_id === live.reused.toolCallId);

    write(
      renderDemoReport({
        where: database.where,
        upgradeAt: formatKeyInstant(DEMO_UPGRADE_AT_NS).replace('.000000000Z', 'Z'),
        history: { ...history.summary, messages: history.messages.length },
        migration,
        live,
        counters,
        health,
        figures,
        reusedRows,
        examples: database.queryExamples(),
        examplesNote: database.dialect === 'postgres' ? '(the password is hidden above: substitute your own URL)' : undefined,
      }),
    );
    if (warnings.length) write(`WARN lines the store logged:\n${warnings.map((w) => `   ${w}`).join('\n')}\n`);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    write(`done in ${seconds.toFixed(1)} s`);
    const healthy = !('error' in health) && health.verdict === 'healthy';
    return migration.ok && healthy ? 0 : 1;
  } finally {
    await database.close();
  }
}
