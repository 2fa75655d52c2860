// Small CLI truths (#16 item 9), the real binary on both dialects: a reader that leaves early
// (`report --json | head -c 10`) never gets an EPIPE stack trace; instants of years 0000–0099
// are those years, never 1900–1999 (JS Date's two-digit-year quirk), both as --since and as a
// stored activation key; an offset beyond ±23:59 is not an instant; a single-valued option
// given twice is a usage error, never silently the last.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKeyInstant, parseInstant } from '../src/instant.js';
import { CLI, assertBuilt, databaseArgs, oneLineError, runCliBinary, type CliRun } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

beforeAll(assertBuilt);

/** Runs the binary with a stdout whose reader is gone before the first byte is written. */
function runWithClosedStdout(args: readonly string[]): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout: '', stderr }));
  });
}

describe('instants of every four-digit year', () => {
  it('years 0000–0099 are those years, exactly, never 1900–1999', () => {
    // Days from 0000-03-01 (proleptic Gregorian), by the civil-from-days arithmetic, independent of Date.
    const daysFromCivil = (y: number, m: number, d: number) => {
      const yy = m <= 2 ? y - 1 : y;
      const era = Math.floor(yy / 400);
      const yoe = yy - era * 400;
      const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
      const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
      return era * 146097 + doe - 719468;
    };
    for (const [text, y, m, d] of [
      ['0099-06-01T00:00:00Z', 99, 6, 1],
      ['0000-01-01T00:00:00Z', 0, 1, 1],
      ['0004-02-29T00:00:00Z', 4, 2, 29],
      ['0100-03-01T00:00:00Z', 100, 3, 1],
      ['1999-06-01T00:00:00Z', 1999, 6, 1],
    ] as const) {
      expect(parseInstant(text), text).toBe(BigInt(daysFromCivil(y, m, d)) * 86_400n * SECOND);
      expect(formatKeyInstant(parseInstant(text)!), text).toBe(text.replace('Z', '.000000000Z'));
    }
    expect(parseInstant('0099-06-01T00:00:00.000000001+01:30')).toBe(BigInt(daysFromCivil(99, 6, 1)) * 86_400n * SECOND - 5_400n * SECOND + 1n);
    expect(parseInstant('0100-02-29T00:00:00Z')).toBeNull(); // 100 is not a leap year
  });

  it('an offset beyond ±23:59 is not an instant', () => {
    for (const text of ['2026-01-01T00:00:00+99:99', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00-00:60', '2026-01-01 00:00:00+23:60']) {
      expect(parseInstant(text), text).toBeNull();
    }
    expect(parseInstant('2026-01-01T00:00:00+23:59')).toBe(parseInstant('2025-12-31T00:01:00Z'));
    expect(parseInstant('2026-01-01T00:00:00-00:00')).toBe(parseInstant('2026-01-01T00:00:00Z'));
  });
});

describeBothDialects('cli truths', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
  });
  afterAll(async () => db.close());
  const report = (...extra: string[]) => runCliBinary(['report', ...databaseArgs(db), ...extra]);

  it('a reader that leaves early (report --json | head -c 10): no EPIPE stack trace, the command’s own exit status', async () => {
    for (const args of [
      ['report', ...databaseArgs(db), '--json'],
      ['report', ...databaseArgs(db)],
      ['health', ...databaseArgs(db), '--json'],
    ]) {
      const run = await runWithClosedStdout(args);
      expect(run.stderr, args.join(' ')).toBe('');
      const plain = await runCliBinary(args);
      expect(run.code, args.join(' ')).toBe(plain.code);
    }
  });

  it('a stdout that cannot be written (a full disk): exit 73, one line, no stack trace', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = await new Promise<CliRun>((resolvePromise, reject) => {
        const child = spawn(process.execPath, [CLI, 'report', ...databaseArgs(db), '--json'], { stdio: ['ignore', full, 'pipe'], timeout: 30_000 });
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolvePromise({ code, stdout: '', stderr }));
      });
      expect(run.code).toBe(73);
      expect(oneLineError(run)).toMatch(/^subagent-context: cannot write the output \(ENOSPC\)/);
    } finally {
      closeSync(full);
    }
  });

  it('--since/--until of years 0000–0099 are rejected as outside 1970…9999, never read as 1999', async () => {
    for (const since of ['0099-06-01T00:00:00Z', '0070-01-01T00:00:00Z', '0000-01-01T00:00:00Z']) {
      const run = await report('--since', since, '--json');
      expect(run.code, since).toBe(2);
      expect(oneLineError(run)).toBe(`subagent-context: --since "${since}" is outside 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z`);
    }
    const until = await report('--until', '0099-06-01T00:00:00Z');
    expect(until.code).toBe(2);
  });

  it('an offset like +99:99 is a usage error', async () => {
    for (const since of ['2026-03-01T00:00:00+99:99', '2026-03-01T00:00:00+24:00']) {
      const run = await report('--since', since);
      expect(run.code, since).toBe(2);
      expect(oneLineError(run)).toMatch(/^subagent-context: --since ".*" is not an RFC3339 instant/);
    }
  });

  it('a single-valued option given twice is a usage error, never silently the last', async () => {
    const option = databaseArgs(db);
    const cases: string[][] = [
      ['report', ...option, ...option],
      ['health', ...option, ...option],
      ['migrate', ...option, option[0], byDialect(dialect, { sqlite: 'elsewhere.db', postgres: 'postgres://elsewhere/db' })],
      ['report', ...option, '--since', '2026-03-01T00:00:00Z', '--since', '2026-03-02T00:00:00Z'],
      ['report', ...option, '--html', 'a.html', '--html=b.html'],
    ];
    for (const args of cases) {
      const run = await runCliBinary(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(oneLineError(run), args.join(' ')).toMatch(/^subagent-context: --(sqlite|postgres|since|html) was given more than once; give it once/);
    }
    // Repeatable options and repeated flags are not affected.
    const repeatable = await report('--task', 'T1', '--task', 'T2', '--json', '--json');
    expect(repeatable.stderr).toBe('');
    expect(repeatable.code).toBe(0);
  });
});

describeBothDialects('cli truths: a stored key of year 0099', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterAll(async () => db.close());

  it('is read as year 99, outside 1970…9999: no health window, the key named (never read as 1999)', async () => {
    const key = '0099-06-01T00:00:00.000000000Z';
    await setKeys(db, { [KEY.captureSince]: key, [KEY.backfillThrough]: '', [KEY.executionSince]: key });
    // Read as 1999 (a two-digit-year reading), the key would bound a window: healthy, exit 0.
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, 631_152_000n * SECOND) });
    const run = await runCliBinary(['health', ...databaseArgs(db), '--json']);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(key);
    expect(run.stderr).toContain('not an instant in 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z');
    expect(run.code).toBe(7);
  });
});
