// `report --since/--until` with a plain date of years 0000–0099 (review of the CLI, bug 6):
// the day check went through Date.UTC, which reads those years as 1900–1999, so 0099-06-01
// was "not a calendar date". It is one, and the answer is the store's range check (outside
// 1970…9999, docs/security.md), like its RFC3339 spelling; a day that does not exist in that
// year (0099-02-29: 99 is no leap year, 1999 neither, but 0004-02-29 is a day) is still one.
// In process (src/cli/main.ts), on both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { windowInstant } from '../src/cli/window-option.js';
import { databaseArgs } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const OUTSIDE = '1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z';

describeBothDialects('cli review: plain dates of years 0000–0099', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => db.close());

  it('are calendar dates, refused by the range check as outside 1970…9999', async () => {
    for (const day of ['0099-06-01', '0000-01-01', '0070-01-01', '0004-02-29', '0099-12-31']) {
      for (const name of ['since', 'until'] as const) {
        const run = await cli(['report', ...databaseArgs(db), `--${name}`, day]);
        expect(run.code, `${name} ${day}: ${run.err}`).toBe(EXIT.usage);
        expect(run.err).toBe(`subagent-context: --${name} "${day}T00:00:00Z" is outside ${OUTSIDE}\n`);
      }
    }
  });

  it('a day those years do not have is still not a calendar date', async () => {
    for (const day of ['0099-02-29', '0001-02-29', '0050-04-31', '0000-13-01']) {
      const run = await cli(['report', ...databaseArgs(db), '--since', day]);
      expect(run.code, day).toBe(EXIT.usage);
      expect(run.err).toBe(`subagent-context: --since "${day}" is not a calendar date (YYYY-MM-DD)\n`);
    }
  });
});

it('cli review: the day check agrees with civil-date arithmetic for every day of years 0000–0099', () => {
  const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const length = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  for (let y = 0; y <= 99; y++) {
    for (let m = 1; m <= 12; m++) {
      for (let d = 28; d <= 31; d++) {
        const day = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        if (d <= length(y, m)) expect(windowInstant('since', day)).toBe(`${day}T00:00:00Z`);
        else expect(() => windowInstant('since', day), day).toThrow(/is not a calendar date/);
      }
    }
  }
});
