// Strings from the database reach a person's terminal: subagent_type and model come from
// agents, key values from whoever wrote kandev_meta. In the human output of `report`,
// `health` and `migrate` every control character (C0, DEL, C1: ESC, CSI, OSC) and every bidi
// control is shown as an escape (`\x1b`, `\u202e`), and a clipped label never ends inside one,
// so an OSC title sequence cut by the clipping cannot leave the terminal swallowing the rest.
// --json stays exact. Both dialects, through the CLI's dispatcher.
import { expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { clipVisible, displayWidth, visible } from '../src/render/display-text.js';
import type { HealthReport, SubagentContextReport } from '../src/index.js';
import { FIXTURE_KEYS, seedReportFixture } from './helpers/report-fixture.js';
import { databaseArgs } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { parseInstant } from '../src/instant.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

// The characters no human output may carry raw (a line break is the output's own).
// eslint-disable-next-line no-control-regex -- the characters under test
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
// An OSC title sequence long enough to be clipped in the label column (28 columns).
const OSC_TYPE = `\u001b]0;pwned\u0007${'A'.repeat(40)}`;
const CSI_MODEL = '\u001b[2J\u009b31mred\u001b[0m';
const BIDI_TYPE = 'safe\u202eevil\u2066';
const KEY = '\u001b]2;key\u0007';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

async function seedHostile(db: TestDb): Promise<void> {
  await seedReportFixture(db);
  const at = (iso: string) => hostTimestamp(db, parseInstant(iso)!);
  for (const [i, type, model] of [
    [1, OSC_TYPE, CSI_MODEL],
    [2, BIDI_TYPE, 'm\u0085x'],
  ] as const) {
    await insertSubagentRow(db, {
      id: `hostile-${i}`,
      sessionId: 's1',
      taskId: 'T1',
      turnId: `hostile-turn-${i}`,
      source: 'live',
      executionId: 'exec-h',
      observedAt: at('2026-03-02T00:00:00Z'),
      settledAt: at('2026-03-02T00:01:00Z'),
      totalTokens: 5_000_000 + i, // the largest groups: drawn first
      subagentType: type,
      model,
    });
  }
  // A key value that is not an instant: quoted in a caveat and shown in both headers.
  await db.query(`UPDATE kandev_meta SET value = $1 WHERE key = 'subagent_context_backfill_through'`, [KEY]);
}

/** Every escape the output shows is whole: `\x` and two hex digits, or `\u` and four. */
const brokenEscape = (text: string) => text.match(/\\x(?![0-9a-f]{2})|\\u(?![0-9a-f]{4})/);

describeBothDialects('human output shows control characters, JSON keeps them', (dialect) => {
  it('report: labels, models and key values are escaped and clipped whole; --json is exact', async () => {
    const db = await openTestDb(dialect, 'package');
    try {
      await seedHostile(db);
      const args = databaseArgs(db);
      const human = await cli(['report', ...args]);
      expect([human.code, human.err]).toEqual([0, '']);
      expect(human.out.match(RAW_CONTROL)).toBeNull();
      expect(brokenEscape(human.out)).toBeNull();
      // The OSC label is clipped in the label column, its escapes shown whole before the cut.
      expect(human.out).toMatch(/^\s+\\x1b\]0;pwned\\x07A+… │/m);
      expect(human.out).toContain('safe\\u202eevil\\u2066');
      expect(human.out).toContain('\\x1b[2J\\x9b31mred\\x1b[0m');
      expect(human.out).toContain('m\\x85x');
      expect(human.out).toContain('\\x1b]2;key\\x07');

      const json = await cli(['report', ...args, '--json']);
      const report = JSON.parse(json.out) as SubagentContextReport;
      expect(report.tokens.by_subagent_type.map((g) => g.subagent_type)).toEqual(expect.arrayContaining([OSC_TYPE, BIDI_TYPE]));
      expect(report.tokens.by_model.map((g) => g.model)).toEqual(expect.arrayContaining([CSI_MODEL, 'm\u0085x']));
      expect(report.keys.backfill_through).toBe(KEY);
      expect(report.keys.capture_since).toBe(FIXTURE_KEYS.subagent_context_capture_since);
    } finally {
      await db.close();
    }
  });

  it('health: a key value is escaped in the human view and exact in --json', async () => {
    const db = await openTestDb(dialect, 'package');
    try {
      await seedHostile(db);
      const args = databaseArgs(db);
      const human = await cli(['health', ...args]);
      expect(human.err).toBe('');
      expect(human.out.match(RAW_CONTROL)).toBeNull();
      expect(human.out).toMatch(/^ {2}backfill_through {2}\\x1b\]2;key\\x07$/m);
      const json = await cli(['health', ...args, '--json']);
      expect((JSON.parse(json.out) as HealthReport).keys.backfill_through).toBe(KEY);
    } finally {
      await db.close();
    }
  });
});

it('clips by grapheme and terminal column, never inside a surrogate pair, a combining sequence or an escape', () => {
  const family = '👩‍👩‍👧';
  const clipped = clipVisible(family.repeat(10), 7);
  expect(clipped).toBe(`${family}${family}${family}…`); // three two-column graphemes and the ellipsis
  expect(displayWidth(clipped)).toBe(7);
  expect(clipVisible('e\u0301'.repeat(10), 4)).toBe('e\u0301e\u0301e\u0301…');
  expect(clipVisible('日本語のラベル', 7)).toBe('日本語…');
  expect(clipVisible('ab\u001b[31m', 5)).toBe('ab…'); // the 4-column \x1b is not cut to "\x"
  expect(clipVisible('short', 28)).toBe('short');
  expect(visible('tab\there\r\n')).toBe('tab\\x09here\\x0d\\x0a');
  expect(visible('\u007f\u0080\u009f\u061c\u200e\u200f\u202a\u202e\u2066\u2069\u2028')).toBe(
    '\\x7f\\x80\\x9f\\u061c\\u200e\\u200f\\u202a\\u202e\\u2066\\u2069\\u2028',
  );
  expect(visible('plain ünïcödé 日本 🚀')).toBe('plain ünïcödé 日本 🚀');
});
