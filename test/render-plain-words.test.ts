// What a person reads says its notes in plain words: no spec criterion code ("AC-25") in the
// terminal report, the HTML page, the health output or the migration output, whatever state
// the store is in. The report's own caveats (the JSON, store.report()) keep the codes for
// reviewers: the control below checks they are there, so a test passing here means the
// human views took them out, not that there was nothing to take out. Both dialects.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatReport, renderReportHtml, type SubagentContextReport } from '../src/index.js';
import { parseInstant } from '../src/instant.js';
import { COMMANDS } from '../src/cli/commands.js';
import { runCli } from '../src/cli/main.js';
import { formatHealth } from '../src/render/format-health.js';
import { formatMigration } from '../src/render/format-migration.js';
import { plainWords, SPEC_CODE } from '../src/render/notes.js';
import { setKeys } from './helpers/activation-keys.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const C = 'subagent_context_capture_since';
const B = 'subagent_context_backfill_through';
const E = 'subagent_context_execution_since';
const CAPTURE = '2026-03-01T12:00:00.000000000Z';
const BACKFILL = '2026-03-01T10:00:00.000000000Z';

/** Key states reaching every caveat the report can write (report-states.test.ts checks each one's meaning). */
const KEY_STATES: Record<string, Record<string, string>> = {
  activated: { [C]: CAPTURE, [B]: BACKFILL, [E]: CAPTURE },
  capture_only: { [C]: CAPTURE, [B]: BACKFILL },
  execution_only: { [E]: CAPTURE },
  not_activated: {},
  'backfill sentinel': { [C]: CAPTURE, [B]: '', [E]: CAPTURE },
  'partial pair': { [C]: CAPTURE, [E]: CAPTURE },
  'second precision': { [C]: '2026-03-01T12:00:00Z', [B]: '2026-03-01T10:00:00Z', [E]: '2026-03-01T12:00:00Z' },
  'unreadable backfill_through': { [C]: CAPTURE, [B]: 'not-a-time', [E]: CAPTURE },
  'live rows before capture': { [C]: '2026-03-01T14:00:00.000000000Z', [B]: BACKFILL, [E]: '2026-03-01T12:30:00.000000000Z' },
};

/** One backfilled 'unknown' row, one settled live row without tokens, one live 'unknown' row after execution_since. */
async function seed(db: TestDb, keys: Record<string, string>): Promise<void> {
  const at = (iso: string) => hostTimestamp(db, parseInstant(iso)!);
  await insertSession(db, 's1', 'T1');
  const row = { sessionId: 's1', taskId: 'T1', totalTokens: null };
  await insertSubagentRow(db, {
    ...row,
    id: 'old',
    turnId: 'turn-old',
    source: 'backfill',
    executionId: 'unknown',
    observedAt: at('2026-03-01T08:00:00Z'),
    settledAt: null,
  });
  await insertSubagentRow(db, {
    ...row,
    id: 'new',
    turnId: 'turn-new',
    source: 'live',
    executionId: 'exec-1',
    observedAt: at('2026-03-01T13:00:00Z'),
    toolStatus: 'completed',
    settledAt: at('2026-03-01T13:01:00Z'),
  });
  await insertSubagentRow(db, {
    ...row,
    id: 'lost',
    turnId: 'turn-new',
    source: 'live',
    executionId: 'unknown',
    observedAt: at('2026-03-01T13:02:00Z'),
    settledAt: null,
  });
  await setKeys(db, keys);
}

const expectPlain = (what: string, text: string) => expect(text.match(new RegExp(`.{0,60}${SPEC_CODE.source}.{0,20}`))?.[0] ?? null, what).toBeNull();

describeBothDialects('human views say their notes in plain words', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(async () => db.close());

  it('the terminal report and the page, in every key state and scope: no criterion code, though the caveats cite them', async () => {
    const caveats = new Set<string>();
    const check = (name: string, report: SubagentContextReport) => {
      report.caveats.forEach((c) => caveats.add(c));
      expectPlain(`${name}: terminal`, formatReport(report, { where: name }));
      expectPlain(`${name}: page`, renderReportHtml(report, { where: name }));
    };
    for (const [name, keys] of Object.entries(KEY_STATES)) {
      await db.exec('DELETE FROM task_session_subagents');
      await db.exec('DELETE FROM kandev_meta');
      await db.exec('DELETE FROM task_sessions');
      await seed(db, keys);
      check(name, await db.store().report());
      check(`${name}, scoped`, await db.store().report({ taskIds: ['T1'], since: '2026-03-01T00:00:00Z' }));
    }
    // The control: the report's own caveats cite criteria in every form the views take out.
    const cited = [...caveats].filter((c) => SPEC_CODE.test(c));
    expect(cited.length).toBeGreaterThanOrEqual(10);
    for (const form of [/ \(AC-\d+[a-z]?\)/, / \(AC-\d+[a-z]?, AC-\d+[a-z]?\)/, /, AC-\d+[a-z]?\)/, /\(AC-24 point 5\)/]) {
      expect(
        cited.some((c) => form.test(c)),
        String(form),
      ).toBe(true);
    }
  });

  it('the rich fixture store: every caveat, the finding and the charts in plain words', async () => {
    await seedReportFixture(db);
    const report = await db.store().report();
    expect(report.caveats.some((c) => SPEC_CODE.test(c))).toBe(true);
    expectPlain('terminal', formatReport(report));
    expectPlain('page', renderReportHtml(report));
  });

  it('health in each state and verdict, and the migration report', async () => {
    await insertSession(db, 's1', 'T1');
    const states: Record<string, string>[] = [{}, { [E]: CAPTURE }, { [C]: CAPTURE, [B]: BACKFILL }, { [C]: CAPTURE, [B]: '', [E]: CAPTURE }];
    const verdicts = new Set<string>();
    for (const keys of states) {
      await db.exec('DELETE FROM kandev_meta');
      await setKeys(db, keys);
      const health = await db.store().checkHealth();
      verdicts.add(`${health.state}/${health.verdict}`);
      expectPlain(`health ${health.state}`, formatHealth(health, 'here'));
    }
    expect(verdicts.size).toBe(states.length);
    expectPlain('migrate', formatMigration(await db.store().runMigrations(), 'here'));
  });
});

describe('the CLI help', () => {
  it('names no criterion code in any command or its --help', async () => {
    const help = async (args: string[]) => {
      let text = '';
      const code = await runCli(args, { out: (t) => void (text += t), err: (t) => void (text += t) });
      expect(code, args.join(' ')).toBe(0);
      return text;
    };
    const texts = [await help(['--help']), ...(await Promise.all(Object.keys(COMMANDS).map((name) => help([name, '--help']))))];
    expect(texts.every((t) => t.length > 40)).toBe(true);
    texts.forEach((t, i) => expectPlain(i === 0 ? '--help' : `${Object.keys(COMMANDS)[i - 1]} --help`, t));
  });
});

describe('plainWords()', () => {
  // Every string the package itself writes into a caveat or a migration step's detail, read
  // from the source: a new way of citing a criterion fails here before it reaches a reader.
  const sources = [
    'src/report/caveats.ts',
    'src/sqlite/migrations.ts',
    'src/postgres/migrations.ts',
    ...readdirSync('src/migrations').map((f) => join('src/migrations', f)),
  ];
  const cited = sources.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => SPEC_CODE.test(line) && !/^\s*(\/\/|\/\*|\*)/.test(line))
      .map((line) => line.replace(/\/\/ .*$/, ''))
      .flatMap((line) => [...line.matchAll(/(['`])((?:(?!\1).)*AC-\d(?:(?!\1).)*)\1/g)].map((m) => ({ file, text: m[2] }))),
  );

  it('takes every criterion the package cites in its messages out of the sentence', () => {
    expect(cited.length).toBeGreaterThanOrEqual(15);
    for (const { file, text } of cited) expect(plainWords(text), `${file}: ${text}`).not.toMatch(SPEC_CODE);
  });

  it('keeps the words around them', () => {
    expect(plainWords('turns are lower bounds, never zeros (AC-25).')).toBe('turns are lower bounds, never zeros.');
    expect(plainWords('The backfill has not succeeded (AC-24c, AC-24a): no boundary')).toBe('The backfill has not succeeded: no boundary');
    expect(plainWords('absent (a partial key pair the next boot completes, AC-24d): known')).toBe('absent (a partial key pair the next boot completes): known');
    expect(plainWords('either side of it, a disclosed limitation (AC-24 point 5).')).toBe('either side of it, a disclosed limitation.');
    expect(plainWords('not run: the AC-33 end state was not observed')).toBe('not run: the end state was not observed');
  });
});
