// One error and logging policy (issue #19 item 5), on both dialects with real failures:
// - a host logger that throws, or an async one that rejects, never breaks anything the package
//   does (the store, the ACP recorder): every call goes through one guarded logger
//   (src/logger.ts), and no rejection is left unhandled;
// - report() rejects like checkHealth(): with a code its exported type lists (missing_tables
//   included), and a driver failure wrapped as database_error with the driver's error on cause;
// - the CLI's report command keeps that cause and prints a driver failure exactly as the health
//   command prints the same failure.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { createAcpRecorder } from '../src/acp/index.js';
import { CliError } from '../src/cli/cli-error.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { reportCommandError } from '../src/cli/report-command.js';
import { SubagentContextError, type Logger, type ReportErrorCode } from '../src/index.js';
import { databaseArgs } from './helpers/cli.js';
import { steppingClock } from './helpers/clock.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { failWritesOf, frame } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

// Every code report() may reject with. A code missing from ReportErrorCode fails the typecheck here.
const REPORT_CODES: Record<ReportErrorCode, true> = {
  invalid_report_options: true,
  invalid_report_window: true,
  invalid_report_scope: true,
  missing_tables: true,
  database_error: true,
};

/** A logger whose every method rejects asynchronously: what an async host logger does when its sink is down. */
const rejectingLogger = (): Logger => ({
  warn: async () => Promise.reject(new Error('async logger down')),
  info: async () => Promise.reject(new Error('async logger down')),
});

const throwingLogger = (): Logger => ({
  warn() {
    throw new Error('logger down');
  },
});

/** Rejections nobody handled while `fn` ran (and for a few turns of the event loop after it). */
async function unhandledRejections(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await fn();
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`resolved: ${JSON.stringify(value)}`);
    },
    (err: unknown) => err,
  );
}

async function cli(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await runCli(args, { out: () => {}, err: (t) => void (err += t) });
  return { code, err };
}

describeBothDialects('error policy', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('an async logger that rejects: the failed write is still failed and counted, and no rejection is left unhandled', async () => {
    await failWritesOf(db, 'poison');
    const store = db.store({ clock: steppingClock(), logger: rejectingLogger() });
    const unhandled = await unhandledRejections(async () => {
      expect(await store.recordFrame(frame({ toolCallId: 'poison' }))).toBe('failed');
      expect(await store.recordFrames([frame({ toolCallId: 'poison' }), frame({ toolCallId: 'ok' })])).toEqual(['failed', 'persisted']);
    });
    expect(unhandled).toEqual([]);
    expect(store.counters()).toMatchObject({ attempted: 3, failed: 2, persisted: 1 });
  });

  it('the ACP recorder with a throwing logger: a context that throws fails the update, and sessionUpdate still resolves', async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, {
      logger: throwingLogger(),
      context: () => {
        throw new Error('host lookup broke');
      },
    });
    const update = {
      sessionId: 'acp-1',
      update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'task', kind: 'think', status: 'pending', rawInput: {} },
    };
    await expect(recorder.sessionUpdate(update)).resolves.toBe('failed');
    expect(recorder.counters()).toMatchObject({ context_failed: 1 });
  });

  it('report() on a store never migrated rejects with missing_tables, a code ReportErrorCode lists', async () => {
    await db.exec('DROP TABLE task_session_subagents');
    const err = await rejection(db.store().report());
    expect(err).toBeInstanceOf(SubagentContextError);
    const code = (err as SubagentContextError).code;
    expect(code).toBe('missing_tables');
    expect(Object.keys(REPORT_CODES)).toContain(code);
  });

  it("a statement that fails inside report(): database_error with the driver's error on cause, as checkHealth()", async () => {
    // Present to the table probe, but without the columns the key read needs.
    await db.exec('DROP TABLE kandev_meta');
    await db.exec('CREATE TABLE kandev_meta (k TEXT)');
    const store = db.store();
    const report = await rejection(store.report());
    const health = await rejection(store.checkHealth());
    expect(report).toBeInstanceOf(SubagentContextError);
    expect(report).toMatchObject({ code: 'database_error' });
    const cause = (report as Error).cause as Error & { code?: unknown };
    expect(cause).toBeInstanceOf(Error);
    expect(cause).not.toBeInstanceOf(SubagentContextError);
    expect(cause.code).toBe(byDialect(dialect, { sqlite: 'SQLITE_ERROR', postgres: '42703' }));
    expect((report as Error).message).toContain(cause.message);
    // The same failure through checkHealth(): the same code, the same driver code on cause.
    expect(health).toMatchObject({ code: 'database_error', cause: { code: cause.code } });

    // The CLI keeps the chain: CliError -> the report's error -> the driver's.
    const command = reportCommandError(report);
    expect(command).toBeInstanceOf(CliError);
    expect(command).toMatchObject({ code: 'database_error', exitCode: EXIT.database });
    expect((command as Error).cause).toBe(report);
  });

  it('the CLI prints a driver failure in report exactly as health prints it (exit 7, one line)', async () => {
    await db.exec('DROP TABLE kandev_meta');
    await db.exec('CREATE TABLE kandev_meta (k TEXT)');
    const report = await cli(['report', ...databaseArgs(db)]);
    const health = await cli(['health', ...databaseArgs(db)]);
    expect(health.code).toBe(EXIT.database);
    expect(health.err).toMatch(
      byDialect(dialect, { sqlite: /^subagent-context: SQLite SQLITE_ERROR: no such column/, postgres: /^subagent-context: PostgreSQL 42703: column / }),
    );
    expect(report).toEqual(health);
  });

  it('missing tables and bad options keep the report error on the CLI error', async () => {
    await db.exec('DROP TABLE task_session_subagents');
    const missing = await rejection(db.store().report());
    expect(reportCommandError(missing)).toMatchObject({ code: 'database_error', exitCode: EXIT.database, cause: missing });
    const usage = await rejection(db.store().report({ since: 'yesterday' }));
    expect(reportCommandError(usage)).toMatchObject({ code: 'usage_error', exitCode: EXIT.usage, cause: usage });
  });
});
