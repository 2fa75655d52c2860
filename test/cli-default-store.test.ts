// Issue 30 items 3 and 4 at the CLI: `report`, `health` and `migrate` without --sqlite or
// --postgres read SUBAGENT_CONTEXT_DB (a file path or a postgres:// URL), else the proxy's
// default store, and say on stderr which one they chose; an option always wins. And
// `migrate --create-host-tables`, the standalone path: the host tables first, then the pass.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { playSession } from './helpers/acp-client.js';
import { openProxyStore, proxiedAgent, type ProxyStore } from './helpers/proxy-store.js';

beforeAll(assertBuilt);

/** The child's environment: this one without the variable, and a data directory of the test's own. */
function environment(dataHome: string, db?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: dataHome };
  delete env.SUBAGENT_CONTEXT_DB;
  if (db !== undefined) env.SUBAGENT_CONTEXT_DB = db;
  return env;
}

describe("the proxy's default store [sqlite]", () => {
  let scratch: string;
  let defaultFile: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'subagent-context-default-'));
    defaultFile = join(scratch, 'subagent-context', 'sessions.db');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('not there yet: report, health and migrate say so in one line (exit 7) and create nothing', async () => {
    const env = environment(scratch);
    for (const command of ['report', 'health', 'migrate']) {
      const run = await runCliBinary([command], 30_000, { env });
      expect(run.code, command).toBe(7);
      expect(oneLineError(run), command).toBe(
        `subagent-context: no store at ${defaultFile}, the proxy's default (nothing recorded there yet): pass --sqlite FILE or --postgres URL, or set SUBAGENT_CONTEXT_DB`,
      );
    }
    expect(existsSync(join(scratch, 'subagent-context'))).toBe(false);
  });

  it('there: each command reads it and names it on stderr; the output is the same as with --sqlite', async () => {
    const db = await openTestDb('sqlite');
    try {
      await insertSession(db, 's1', 'task-1');
      expect((await db.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
      db.sqlite!.pragma('wal_checkpoint(TRUNCATE)');
      mkdirSync(join(scratch, 'subagent-context'));
      copyFileSync(db.location, defaultFile);
    } finally {
      await db.close();
    }
    const env = environment(scratch);
    const note = (verb: string) =>
      `subagent-context: ${verb} sqlite ${defaultFile}, the proxy's default store (--sqlite FILE, --postgres URL or SUBAGENT_CONTEXT_DB choose another)\n`;
    for (const [command, verb, code] of [
      ['report', 'reading', 0],
      ['health', 'checking', 5],
      ['migrate', 'migrating', 0],
    ] as const) {
      const run = await runCliBinary([command], 30_000, { env });
      expect(run.stderr, command).toBe(note(verb));
      expect(run.code, command).toBe(code);
      expect(run.stdout, command).toContain(`sqlite ${defaultFile}`);
      const explicit = await runCliBinary([command, '--sqlite', defaultFile], 30_000, { env });
      expect(explicit.stderr, command).toBe('');
      expect(explicit.stdout, command).toBe(command === 'migrate' ? explicit.stdout : run.stdout);
    }
  });
});

describeBothDialects('SUBAGENT_CONTEXT_DB', (dialect) => {
  let db: TestDb;
  let scratch: string;
  beforeAll(async () => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1', 'task-1');
    expect((await db.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
    scratch = mkdtempSync(join(tmpdir(), 'subagent-context-env-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('names the store report, health and migrate use; --json stays clean; an option wins over it', async () => {
    const env = environment(scratch, db.location);
    const health = await runCliBinary(['health', '--json'], 30_000, { env });
    expect(health.code).toBe(5);
    expect(JSON.parse(health.stdout)).toEqual(await db.store().checkHealth());
    const shown = byDialect(db.dialect, { sqlite: `sqlite ${db.location}`, postgres: 'postgres ' });
    expect(health.stderr.startsWith(`subagent-context: checking ${shown}`)).toBe(true);
    expect(health.stderr).toMatch(/ \(from SUBAGENT_CONTEXT_DB\)\n$/);
    if (dialect === 'postgres') expect(health.stderr).toContain(`postgres://${new URL(db.location).username}:***@`); // the password masked
    const report = await runCliBinary(['report', '--json'], 30_000, { env });
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout).provenance).toEqual((await db.store().report()).provenance);
    const migrate = await runCliBinary(['migrate', '--json'], 30_000, { env });
    expect(migrate.code).toBe(0);
    expect(JSON.parse(migrate.stdout).ok).toBe(true);

    // An option wins: the variable names a file that does not exist, and is not read.
    const overridden = await runCliBinary(['health', '--json', ...databaseArgs(db)], 30_000, { env: environment(scratch, join(scratch, 'nowhere.db')) });
    expect(overridden.code).toBe(5);
    expect(overridden.stderr).toBe('');
    // A path in the variable that does not exist is an error naming it, never a new file.
    const missing = await runCliBinary(['health'], 30_000, { env: environment(scratch, join(scratch, 'nowhere.db')) });
    expect(missing.code).toBe(7);
    expect(missing.stderr).toContain(`no such SQLite file: ${join(scratch, 'nowhere.db')}`);
    expect(existsSync(join(scratch, 'nowhere.db'))).toBe(false);
  });
});

describeBothDialects('migrate --create-host-tables', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await db.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions');
  });
  afterEach(async () => db.close());

  it('creates the host tables, then migrates: exit 0; a second run changes nothing', async () => {
    const run = await runCliBinary(['migrate', '--create-host-tables', ...databaseArgs(db)]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^result: ok/m);
    expect(await db.query('SELECT COUNT(*) AS n FROM task_session_messages')).toEqual([{ n: byDialect(dialect, { sqlite: 0, postgres: '0' }) }]);
    const again = await runCliBinary(['migrate', '--create-host-tables', ...databaseArgs(db), '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).steps.every((s: { status: string }) => s.status === 'skipped')).toBe(true);
  });

  if (dialect === 'sqlite') {
    it('creates a SQLite file that does not exist yet (without the option, it is refused)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'subagent-context-new-'));
      try {
        const file = join(dir, 'new.db');
        const refused = await runCliBinary(['migrate', '--sqlite', file]);
        expect(refused.code).toBe(7);
        expect(existsSync(file)).toBe(false);
        const run = await runCliBinary(['migrate', '--create-host-tables', '--sqlite', file]);
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/^result: ok/m);
        expect((await runCliBinary(['health', '--sqlite', file])).code).toBe(5);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describeBothDialects('the proxy and report agree on SUBAGENT_CONTEXT_DB', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('the proxy records into the store the variable names, and a bare report reads it', async () => {
    const location = store.args[1];
    const end = await playSession(proxiedAgent([], { SUBAGENT_CONTEXT_DB: location }));
    expect(end.code, end.stderr).toBe(0);
    expect((await store.query<{ t: string }>('SELECT tool_call_id AS t FROM task_session_subagents ORDER BY 1')).map((r) => r.t)).toEqual([
      'call_task_performance',
      'call_task_security',
      'call_task_style',
    ]);
    const scratch = mkdtempSync(join(tmpdir(), 'subagent-context-env-'));
    try {
      const report = await runCliBinary(['report', '--json'], 30_000, { env: environment(scratch, location) });
      expect(report.code, report.stderr).toBe(0);
      expect(JSON.parse(report.stdout).provenance.rows).toBe(3);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
