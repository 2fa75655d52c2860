// `report` on a store with imported Claude Code transcripts: the usage ledger for the report's
// scope — tokens per subagent type and model over every run, and the subagents' share of each
// session's and card's tokens (parents' own usage from the main transcripts) beside the
// reported total_tokens — in the text (its finding first) and in --json (`usage_ledger`,
// numbers, null where the ledger does not know), with figures equal to the ledger's own sums
// read apart; a --task or window scope shows its own cards' ledger and no other's; nothing on
// a store without ledger figures or without the ledger's tables.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { SubagentContextReport } from '../src/index.js';
import { importInto, RECORDED_PROJECTS } from './helpers/claude-import.js';
import { CARD_A, CARD_B, importTwoCards, ledgerSums, SESSION_A, SESSION_B } from './helpers/ledger-cards.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { byDialect } from './helpers/by-dialect.js';
import { describeBothDialects } from './helpers/test-db.js';

async function report(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(['report', ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

async function reportJson(args: string[]): Promise<SubagentContextReport> {
  const run = await report([...args, '--json']);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as SubagentContextReport;
}

const int = (n: number) => n.toLocaleString('en-US');
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

describeBothDialects('report: the usage ledger', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('text: the finding first, then tokens per subagent type and model, then each card and session', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const all = await ledgerSums(store, [SESSION_A, SESSION_B]);
    const run = await report(store.args);
    expect(run.code, run.err).toBe(0);
    const section = run.out.slice(run.out.indexOf('Usage ledger:'), run.out.indexOf('Notes:'));
    const lines = section.split('\n');
    expect(lines[1]).toBe(
      `  Subagents used ${pct(all.subagent, all.subagent + all.parent)} of this card's ${int(all.subagent + all.parent)} tokens (${int(all.subagent)} over ${all.runs} runs; the parents' own: ${int(all.parent)}); ` +
        `the reported total_tokens covers only ${pct(all.reported, all.subagent)} of it (${int(all.reported)} over ${all.reportedRuns} of ${all.runs} runs).`,
    );
    expect(all.runs).toBe(8);
    expect(all.subagent).toBeGreaterThan(all.parent); // the recorded sessions fan out: most tokens are the subagents'
    expect(all.reported).toBeLessThan(all.subagent); // total_tokens (one response per run) misses most of it
    expect(section).toMatch(new RegExp(`general-purpose · claude-opus-5-5 +${int(all.subagent)} tokens · 8 runs · 10 requests\\n`));
    for (const id of [SESSION_A, SESSION_B]) {
      const s = await ledgerSums(store, [id]);
      expect(section).toContain(
        `${id}   ${pct(s.subagent, s.subagent + s.parent)} of ${int(s.subagent + s.parent)} · subagents ${int(s.subagent)} over ${s.runs} runs`,
      );
    }
  });

  it('--json: usage_ledger holds the same figures as numbers, and null where the ledger does not know', async () => {
    await importTwoCards(store);
    const [a, b] = [await ledgerSums(store, [SESSION_A]), await ledgerSums(store, [SESSION_B])];
    let l = (await reportJson(store.args)).usage_ledger!;
    expect(l.all).toMatchObject({ sessions: 2, runs: a.runs + b.runs, subagent_tokens: a.subagent + b.subagent, parent_tokens: a.parent + b.parent });
    expect(l.all.reported_total_tokens).toBe(a.reported + b.reported);
    expect(l.all.subagent_share).toBeCloseTo((a.subagent + b.subagent) / (a.subagent + b.subagent + a.parent + b.parent), 12);
    expect(l.all.reported_coverage).toBeCloseTo((a.reported + b.reported) / (a.subagent + b.subagent), 12);
    expect(l.by_card.map((c) => [c.task_id, c.subagent_tokens, c.parent_tokens])).toEqual([
      [CARD_A, a.subagent, a.parent],
      [CARD_B, b.subagent, b.parent],
    ]);
    expect(l.by_session.map((s) => [s.task_id, s.task_session_id, s.runs, s.subagent_tokens, s.parent_tokens, s.reported_total_tokens])).toEqual([
      [CARD_A, SESSION_A, a.runs, a.subagent, a.parent, a.reported],
      [CARD_B, SESSION_B, b.runs, b.subagent, b.parent, b.reported],
    ]);
    const [group] = l.by_subagent_type_and_model;
    expect(group).toMatchObject({
      subagent_type: 'general-purpose',
      model: 'claude-opus-5-5',
      runs: 8,
      requests: 10,
      tokens: a.subagent + b.subagent,
      unreported_rows: 0,
    });
    for (const figure of [group.input_tokens, group.output_tokens, group.cache_read_input_tokens, group.cache_creation_input_tokens])
      expect(typeof figure).toBe('number');

    // A figure no response reported stays null (its rows counted as missing one); a session
    // without the parent's own usage has no share, and neither has its card nor the whole.
    await store.exec('UPDATE task_session_subagent_usage SET cache_creation_input_tokens = NULL');
    await store.exec(`DELETE FROM task_session_parent_usage WHERE task_session_id = '${SESSION_B}'`);
    const [rows] = await store.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM task_session_subagent_usage');
    l = (await reportJson(store.args)).usage_ledger!;
    expect(l.by_subagent_type_and_model[0].cache_creation_input_tokens).toBeNull();
    expect(l.by_subagent_type_and_model[0].unreported_rows).toBe(Number(rows.n));
    expect(l.by_subagent_type_and_model[0].tokens).toBeGreaterThan(0); // the other three figures: a lower bound, not unknown
    const sessionB = l.by_session.find((s) => s.task_session_id === SESSION_B)!;
    expect([sessionB.parent_tokens, sessionB.subagent_share]).toEqual([null, null]);
    expect(l.by_session.find((s) => s.task_session_id === SESSION_A)!.subagent_share).not.toBeNull();
    expect([l.by_card.find((c) => c.task_id === CARD_B)!.parent_tokens, l.all.parent_tokens, l.all.subagent_share]).toEqual([null, null, null]);
    const text = (await report(store.args)).out;
    expect(text).toContain("their share is unknown: 1 session without the parent's own usage in the ledger");
    expect(text).toMatch(/Lower bounds: \d+ ledger rows miss a figure \(not counted as 0\)/);
  });

  it('a --task scope shows that card ledger only; a window, the sessions active in it', async () => {
    await importTwoCards(store);
    for (const [card, mine, other] of [
      [CARD_A, SESSION_A, SESSION_B],
      [CARD_B, SESSION_B, SESSION_A],
    ]) {
      const sums = await ledgerSums(store, [mine]);
      const l = (await reportJson([...store.args, '--task', card])).usage_ledger!;
      expect(l.by_card.map((c) => c.task_id)).toEqual([card]);
      expect(l.by_session.map((s) => s.task_session_id)).toEqual([mine]);
      expect(l.all).toMatchObject({
        sessions: 1,
        runs: sums.runs,
        subagent_tokens: sums.subagent,
        parent_tokens: sums.parent,
        reported_total_tokens: sums.reported,
      });
      expect(l.by_subagent_type_and_model.reduce((t, g) => t + g.runs, 0)).toBe(sums.runs);
      expect(l.parents_by_model.reduce((t, g) => t + (g.tokens ?? 0), 0)).toBe(sums.parent);
      const text = (await report([...store.args, '--task', card])).out;
      expect(text).toContain(`Subagents used ${pct(sums.subagent, sums.subagent + sums.parent)} of this card's ${int(sums.subagent + sums.parent)} tokens`);
      expect(text).toContain(mine);
      expect(text).not.toContain(other);
    }
    // Both cards: both in the ledger, the finding says so.
    const both = await report([...store.args, '--task', CARD_A, '--task', CARD_B]);
    expect(both.out).toContain("of these 2 cards' ");
    // A card with no ledger, a window no session was active in: no ledger at all.
    expect((await reportJson([...store.args, '--task', 'card-without-ledger'])).usage_ledger).toBeUndefined();
    expect((await reportJson([...store.args, '--since', '2100-01-01'])).usage_ledger).toBeUndefined();
    expect((await report([...store.args, '--since', '2100-01-01'])).out).not.toContain('Usage ledger');
    // The recorded sessions ran apart (A's rows 14:14:05–14:14:06Z, B's 14:14:11Z on 2026-12-07): a window on
    // either side holds one session, with its whole ledger.
    for (const [window, mine] of [
      [['--until', '2026-12-07T14:14:09Z'], SESSION_A],
      [['--since', '2026-12-07T14:14:09Z'], SESSION_B],
    ] as const) {
      const l = (await reportJson([...store.args, ...window])).usage_ledger!;
      const sums = await ledgerSums(store, [mine]);
      expect(l.by_session.map((s) => s.task_session_id)).toEqual([mine]);
      expect(l.all).toMatchObject({ runs: sums.runs, subagent_tokens: sums.subagent, parent_tokens: sums.parent });
    }
    // A window holding every session's activity: the same ledger as no window.
    const unscoped = (await reportJson(store.args)).usage_ledger;
    expect((await reportJson([...store.args, '--since', '2000-01-01', '--until', '2100-01-01'])).usage_ledger).toEqual(unscoped);
  });

  it('text: a control character in a subagent_type or a model is shown as an escape, never sent raw', async () => {
    await importInto(store, RECORDED_PROJECTS);
    await store.exec(`UPDATE task_session_subagents SET subagent_type = 'rev\u001b]0;pwned\u0007iewer'`);
    await store.exec(`UPDATE task_session_subagent_usage SET model = 'mo\u202edel'`);
    const run = await report(store.args);
    const section = run.out.slice(run.out.indexOf('Usage ledger:'));
    expect(section).toContain('rev\\x1b]0;pwned\\x07iewer · mo\\u202edel');
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(run.out.includes(raw), JSON.stringify(raw)).toBe(false);
  });

  it('nothing without ledger figures, nor on a store without the ledger tables', async () => {
    await importInto(store, RECORDED_PROJECTS);
    await store.exec('DELETE FROM task_session_subagent_usage');
    await store.exec('DELETE FROM task_session_parent_usage');
    let run = await report(store.args);
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('Usage ledger');
    expect('usage_ledger' in (await reportJson(store.args))).toBe(false);
    await store.exec('DROP TABLE task_session_subagent_usage');
    run = await report(store.args);
    expect(run.code, run.err).toBe(0);
    expect(run.out).not.toContain('Usage ledger');
    const json = await reportJson(store.args);
    expect('usage_ledger' in json).toBe(false);
    expect(json.cards.sessions).toBe(2); // the rest of the report is there
  });

  // PostgreSQL only: SQLite has no roles (a file it may read, it may read whole).
  if (byDialect(dialect, { sqlite: false, postgres: true })) {
    it('a role that may read the report tables but not the ledger gets the report without it', async () => {
      await importTwoCards(store);
      const role = `ledger_reader_${process.pid}_${Date.now().toString(36)}`;
      const url = new URL(store.args[1]);
      url.username = role;
      url.password = 'pw';
      await store.exec(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
      try {
        for (const t of ['task_sessions', 'task_session_messages', 'kandev_meta', 'task_session_subagents'])
          await store.exec(`GRANT SELECT ON ${t} TO ${role}`);
        const owner = await reportJson(store.args);
        const reader = await reportJson(['--postgres', url.toString()]);
        expect('usage_ledger' in reader).toBe(false);
        expect(reader.cards).toEqual(owner.cards);
        expect(owner.usage_ledger?.all.sessions).toBe(2);
        await store.exec(`GRANT SELECT ON task_session_subagent_usage, task_session_parent_usage TO ${role}`);
        expect((await reportJson(['--postgres', url.toString()])).usage_ledger).toEqual(owner.usage_ledger);
      } finally {
        await store.exec(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
      }
    });
  }
});
