// `subagent-context demo`: the package's main job, end to end, on a database of its own.
// Seeds a host history reproducing the spec's sampled store, runs the upgrade
// (runMigrations: the backfill and activation keys), plays ACP traffic recorded from real
// agents through the ACP recorder the way a host's client would, then prints the migration report, the keys, the counters, the
// health report and the measurements the feature exists for, read through store.report()
// like any consumer would. Deterministic (seeded data, simulated clock); only the step
// timings vary between runs.
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import { toError } from '../errors.js';
import { formatKeyInstant } from '../instant.js';
import type { HealthReport, Logger } from '../index.js';
import { visibleLines } from '../render/display-text.js';
import type { DemoDatabase } from './demo-database.js';
import { buildDemoHistory } from './demo-history.js';
import { renderDemoReport, renderDemoSummary } from './demo-report.js';
import { streamLiveFrames } from './live-stream.js';
import { DEMO_UPGRADE_AT_NS, simulatedClock } from './simulated-clock.js';

/**
 * Opens the demo's database: a SQLite file it creates (or replaces, when the demo made it),
 * or an empty PostgreSQL database. Throws DemoRefusal for a database the demo did not make,
 * and the driver's error when the database cannot be opened. Each dialect's module (and its
 * driver) is imported only when that dialect is chosen: a SQLite-only host has no `pg`.
 */
export async function openDemoDatabase(target: DatabaseTarget): Promise<DemoDatabase> {
  return matchDialect(target, {
    sqlite: async ({ file }) => (await import('./sqlite-demo-database.js')).openSqliteDemoDatabase(file),
    postgres: async ({ url }) => (await import('./postgres-demo-database.js')).openPostgresDemoDatabase(url),
  });
}

/** How the demo ended: the CLI turns anything but a clean upgrade and a healthy verdict into its exit code. */
export interface DemoOutcome {
  migrationOk: boolean;
  /** checkHealth()'s report, or what it rejected with. */
  health: HealthReport | { error: string };
}

/**
 * Runs the demo on an opened database, writes its report through `out` (the CLI's output
 * stream), and closes the database. Rejects only when the database fails underneath it.
 */
export async function runDemo(
  database: DemoDatabase,
  out: (text: string) => void,
  options: { verbose?: boolean; rerunOption?: string } = {},
): Promise<DemoOutcome> {
  const write = (text: string) => out(text.endsWith('\n') ? text : `${text}\n`);
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
    const live = await streamLiveFrames(store, database, clock, history.live);
    const counters = store.counters();
    let health: HealthReport | { error: string };
    try {
      health = await store.checkHealth();
    } catch (err) {
      health = { error: toError(err).message };
    }
    const report = await store.report();
    const reusedRows = (await store.listBySession(live.reused.sessionId)).filter((r) => r.tool_call_id === live.reused.toolCallId);

    const render = options.verbose ? renderDemoReport : renderDemoSummary;
    write(
      render({
        where: database.where,
        upgradeAt: formatKeyInstant(DEMO_UPGRADE_AT_NS).replace('.000000000Z', 'Z'),
        history: { ...history.summary, messages: history.messages.length },
        migration,
        live,
        counters,
        health,
        report,
        reusedRows,
        cliOption: database.cliOption,
        clientCommand: database.clientCommand,
        rerunOption: options.rerunOption ?? '',
        examplesNote: database.examplesNote,
      }),
    );
    if (warnings.length) write(visibleLines(`WARN lines the store logged:\n${warnings.map((w) => `   ${w}`).join('\n')}\n`));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    write(`done in ${seconds.toFixed(1)} s`);
    return { migrationOk: migration.ok, health };
  } finally {
    await database.close();
  }
}
