// A store whose agents reported 120k distinct subagent_type values (and one 100 KB one) must
// still get a report in every view: the human view and the page used to spread the groups
// into Math.max(...) and died with "Maximum call stack size exceeded" while --json worked.
// Now the views draw the ten largest groups plus one "others" line; the JSON keeps every
// group; a label is clipped on the page, and its bidi overrides cannot reorder the figures.
// Seeded in bulk (one statement on PostgreSQL, one transaction on SQLite) to stay fast.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { SubagentContextReport } from '../src/index.js';
import { FIXTURE_KEYS } from './helpers/report-fixture.js';
import { databaseArgs } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { setKeys } from './helpers/activation-keys.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const LABELS = 120_000;
const HUGE = `huge-${'x'.repeat(100_000)}`;
const BIDI = 'rtl-\u202etrap';

async function seedManyLabels(db: TestDb): Promise<void> {
  await insertSession(db, 's1', 'T1');
  const at = hostTimestamp(db, 1_772_370_000_000_000_000n); // 2026-03-01, after the fixture's keys
  if (byDialect(db.dialect, { sqlite: false, postgres: true })) {
    await db.query(
      `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, subagent_type, total_tokens, source, observed_at, settled_at, updated_at)
       SELECT 'r' || i, 's1', 'T1', 'turn-' || (i / 4), 'exec', 'tc-' || i, 'type-' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'live', $1::timestamp, $1::timestamp, $1::timestamp
         FROM generate_series(1, ${LABELS}) AS i`,
      [at],
    );
  } else {
    const insert = db.sqlite!.prepare(
      `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, subagent_type, total_tokens, source, observed_at, settled_at, updated_at)
       VALUES (?, 's1', 'T1', ?, 'exec', ?, ?, ?, 'live', ?, ?, ?)`,
    );
    db.sqlite!.transaction(() => {
      for (let i = 1; i <= LABELS; i++) insert.run(`r${i}`, `turn-${Math.floor(i / 4)}`, `tc-${i}`, `type-${i}`, i % 3 === 0 ? null : i, at, at, at);
    })();
  }
  // Two hostile labels with the largest totals, so both are among the groups drawn.
  for (const [id, label] of [
    ['huge', HUGE],
    ['bidi', BIDI],
  ])
    await insertSubagentRow(db, {
      id,
      sessionId: 's1',
      taskId: 'T1',
      turnId: 'turn-x',
      executionId: 'exec',
      subagentType: label,
      totalTokens: 900_000_000,
      observedAt: at,
      settledAt: at,
    });
  await setKeys(db, FIXTURE_KEYS);
  // As autovacuum would after a bulk load: without statistics the planner picks nested loops.
  if (byDialect(db.dialect, { sqlite: false, postgres: true })) await db.exec('ANALYZE');
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describeBothDialects('report: 120k distinct subagent_type values', (dialect) => {
  let db: TestDb;
  let dir: string;
  let args: string[];
  let json: { code: number; out: string; err: string };
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedManyLabels(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-many-labels-'));
    args = databaseArgs(db);
    json = await cli(['report', ...args, '--json']);
  }, 240_000);
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--json keeps every group, the hostile labels verbatim', async () => {
    expect([json.code, json.err]).toEqual([0, '']);
    const report = JSON.parse(json.out) as SubagentContextReport;
    expect(report.tokens.by_subagent_type).toHaveLength(LABELS + 2);
    expect(report.tokens.by_subagent_type.map((g) => g.subagent_type)).toEqual(expect.arrayContaining([HUGE, BIDI]));
  }, 120_000);

  it('the human view draws the ten largest groups and the rest as one line', async () => {
    const run = await cli(['report', ...args]);
    expect([run.code, run.err]).toEqual([0, '']);
    const lines = run.out.split('\n');
    const from = lines.findIndex((l) => l.trim() === 'by subagent_type');
    const to = lines.findIndex((l, i) => i > from && l.trim() === 'by model');
    const groups = lines.slice(from + 1, to);
    expect(groups).toHaveLength(11);
    // The rest: every group but the ten drawn, their figures summed (120,002 − 10 groups).
    const report = JSON.parse(json.out) as SubagentContextReport;
    const rest = [...report.tokens.by_subagent_type].sort((a, b) => b.total_tokens - a.total_tokens || b.settled - a.settled).slice(10);
    const sum = (pick: (g: (typeof rest)[number]) => number) => rest.reduce((t, g) => t + pick(g), 0).toLocaleString('en-US');
    expect(groups[10]).toMatch(
      new RegExp(
        `^\\s+\\(${(LABELS + 2 - 10).toLocaleString('en-US')} others\\) │[█▏▎▍▌▋▊▉]* ?${sum((g) => g.total_tokens)} tokens {2}\\(${sum((g) => g.measured)} measured · ${sum((g) => g.unmeasured)} unmeasured`,
      ),
    );
    // The 100 KB label is clipped to the label column; the bidi override is shown, not obeyed.
    expect(run.out.length).toBeLessThan(20_000);
    expect(run.out).toMatch(/^\s+huge-x{20,}… │/m);
    expect(run.out).toContain('rtl-\\u202etrap');
    expect(run.out).not.toContain('\u202e');
  }, 120_000);

  it('--html writes a bounded page: ten groups and "others", labels clipped and isolated', async () => {
    const file = join(dir, `many-${dialect}.html`);
    const run = await cli(['report', ...args, '--html', file]);
    expect([run.code, run.err]).toEqual([0, '']);
    const html = readFileSync(file, 'utf8');
    expect(html.length).toBeLessThan(300_000);
    const chart = html.slice(
      html.indexOf('data-chart="tokens-by-subagent-type"'),
      html.indexOf('</figure>', html.indexOf('data-chart="tokens-by-subagent-type"')),
    );
    expect(chart.match(/<rect class="bar"/g)).toHaveLength(11);
    expect(chart).toContain(`data-label="(${(LABELS + 2 - 10).toLocaleString('en-US')} others)"`);
    // Nowhere in full, not even once: at most 160 columns of it in a tooltip.
    expect(html).not.toContain('x'.repeat(200));
    // A bidi override in a label is shown as an escape, and the label stands isolated in the notes.
    expect(html).not.toContain('\u202e');
    expect(html).toContain('<bdi>rtl-\\u202etrap</bdi>');
  }, 120_000);
});
