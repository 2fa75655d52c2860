// The engine-version check that runs before any migration step (src/migrations/database-version.ts).
// What this proves, and what it cannot: the version is read from the real engine through the
// generated query and matches an independent read; the comparison is exact at the boundary
// (minimum == real version passes, real + 1 fails); and the too-old path reports ONE failed
// check with a clear message, runs no step and writes nothing. The engines here are new enough,
// so "too old" is produced by injecting a minimum above the real version through the runner's
// internal option; no test here runs an actually older SQLite or PostgreSQL.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { StoreContext } from '../src/dialect.js';
import { awaited } from '../src/migrations/flow.js';
import type { DatabaseVersion } from '../src/migrations/migration-database.js';
import { createPostgresMigrationDatabase, runPostgresMigrations } from '../src/postgres/migrations.js';
import { createSqliteMigrationDatabase, runSqliteMigrations } from '../src/sqlite/migrations.js';
import type { MigrationReport } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { tableExists } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';

type Minimum = DatabaseVersion & { reason: string };

describeBothDialects('runMigrations: database version check', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
  });
  afterEach(async () => db.close());

  const readVersion = (): Promise<DatabaseVersion> => {
    const migrationDb = byDialect(dialect, {
      sqlite: () => createSqliteMigrationDatabase(db.sqlite!),
      postgres: () => createPostgresMigrationDatabase(db.pool!),
    })();
    return migrationDb.unlocked((p) => awaited(p.readVersion()));
  };

  /** The version as the test reads it itself, not through the package's query. */
  const independentVersion = async (): Promise<DatabaseVersion> => {
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const [{ v }] = await db.query<{ v: string }>('SELECT sqlite_version() AS v');
      const [x, y, z] = v.split('.').map(Number);
      return { text: v, number: x * 1_000_000 + y * 1_000 + z };
    }
    const [{ server_version }] = await db.query<{ server_version: string }>('SHOW server_version');
    const [{ server_version_num }] = await db.query<{ server_version_num: string }>('SHOW server_version_num');
    return { text: server_version, number: Number(server_version_num) };
  };

  const migrate = (logger: ReturnType<typeof recordingLogger>, minimumVersion?: Minimum): Promise<MigrationReport> => {
    const ctx: StoreContext = { dialect, clock: steppingClock(), logger };
    return byDialect(dialect, {
      sqlite: () => runSqliteMigrations(db.sqlite!, ctx, { minimumVersion }),
      postgres: () => runPostgresMigrations(db.pool!, ctx, { minimumVersion }),
    })();
  };

  it("reads the engine's version in its own integer encoding", async () => {
    const version = await readVersion();
    expect(version).toEqual(await independentVersion());
    expect(Number.isInteger(version.number)).toBe(true);
  });

  it("the engine under test meets the package's own minimum: the pass runs and reports no check", async () => {
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.name)).not.toContain('check_database_version');
    expect(report.steps.map((s) => s.name)).toContain('backfill_subagent_contexts');
  });

  it("a minimum equal to the engine's version passes (the boundary is inclusive)", async () => {
    const real = await independentVersion();
    const logger = recordingLogger();
    const report = await migrate(logger, { ...real, reason: 'injected by the test' });
    expect(report.ok).toBe(true);
    expect(report.steps[0].name).toBe('ensure_kandev_meta');
    expect(logger.lines).toEqual([]);
  });

  it('an engine older than the minimum: one failed check with a clear message, one WARN, no step run, nothing written', async () => {
    const real = await independentVersion();
    const minimum: Minimum = { number: real.number + 1, text: 'NEXT', reason: 'injected by the test' };
    const logger = recordingLogger();

    const report = await migrate(logger, minimum);
    expect(report.ok).toBe(false);
    const [check, ...rest] = report.steps;
    const engine = byDialect(dialect, { sqlite: 'SQLite', postgres: 'PostgreSQL' });
    expect(check).toMatchObject({ name: 'check_database_version', status: 'failed' });
    expect(check.error).toBe(
      `${engine} ${real.text} is older than NEXT, the minimum this package needs (injected by the test); no migration step ran (database_too_old)`,
    );
    // Every step is still named, none ran: the same names as a normal pass, all skipped.
    const normal = await openTestDb(dialect);
    const names = (await normal.store({ clock: steppingClock() }).runMigrations()).steps.map((s) => s.name);
    await normal.close();
    expect(rest.map((s) => s.name)).toEqual(names);
    expect(rest.every((s) => s.status === 'skipped' && s.detail === 'not run: check_database_version failed' && s.error === undefined)).toBe(true);
    expect(logger.lines.map((w) => [w.fields.step, w.fields.code])).toEqual([['check_database_version', 'database_too_old']]);
    expect(await tableExists(db, 'kandev_meta')).toBe(false);
    expect(await tableExists(db, 'task_session_subagents')).toBe(false);

    // The same database, once the engine is new enough, migrates fully.
    const later = await migrate(recordingLogger());
    expect(later.ok).toBe(true);
    expect(await tableExists(db, 'task_session_subagents')).toBe(true);
  });
});
