// The --html page's usage-ledger panel in a real browser (Debian's chromium, headless, through
// playwright-core, every network request refused), on both dialects, from two cards' imported
// transcripts (./helpers/ledger-cards.ts): the finding comes first in the panel and says the
// card's share and total_tokens' coverage with the ledger's own sums; the tables hold the same
// figures as the JSON; a --task page shows its card's sessions and no other's; a subagent_type
// holding markup is shown as text; at 400 px the page is no wider than the screen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import type { SubagentContextReport } from '../src/index.js';
import { CARD_A, importTwoCards, ledgerSums, SESSION_A, SESSION_B } from './helpers/ledger-cards.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MARKUP_TYPE = '<img src=x onerror="document.title=1">reviewer';

async function cli(args: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  expect(code, err).toBe(0);
  return out;
}

/** Each row of a table in the panel, as the text of its cells. */
const tableRows = (page: Page, id: string) =>
  page.$$eval(`#usage-ledger table#${id} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim())));

const int = (n: number) => n.toLocaleString('en-US');
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

describeBothDialects('report --html: the usage ledger panel in chromium', (dialect) => {
  let store: ProxyStore;
  let dir: string;
  let context: BrowserContext;
  beforeAll(async () => {
    store = await openProxyStore(dialect);
    await importTwoCards(store);
    // A subagent_type is the agent's text: markup in it must reach the page as text.
    await store.exec(`UPDATE task_session_subagents SET subagent_type = '${MARKUP_TYPE.replace(/'/g, "''")}' WHERE task_session_id = '${SESSION_B}'`);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-ledger-page-'));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      args: ARGS,
      headless: true,
      viewport: { width: 1280, height: 900 },
      offline: true,
    });
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string): Promise<{ page: Page; fetched: string[] }> {
    const page = await context.newPage();
    const fetched: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file://')) fetched.push(r.url());
    });
    await page.route(/^(?!file:)/, (route) => route.abort());
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    return { page, fetched };
  }

  it('a card page: the finding first, then the tables with the ledger figures, and no other card', async () => {
    const file = join(dir, 'card-a.html');
    await cli(['report', ...store.args, '--task', CARD_A, '--html', file]);
    const json = JSON.parse(await cli(['report', ...store.args, '--task', CARD_A, '--json'])) as SubagentContextReport;
    const a = await ledgerSums(store, [SESSION_A]);
    const { page, fetched } = await open(file);
    expect(fetched).toEqual([]);
    expect(await page.$$('script')).toHaveLength(0);

    const finding = await page.$eval('#usage-ledger-finding', (p) => (p as HTMLElement).innerText);
    expect(finding).toContain(`Subagents used ${pct(a.subagent, a.subagent + a.parent)} of this card's ${int(a.subagent + a.parent)} tokens`);
    expect(finding).toContain(
      `the reported total_tokens covers only ${pct(a.reported, a.subagent)} of it (${int(a.reported)} over ${a.reportedRuns} of ${a.runs} runs)`,
    );
    // The finding first: above every table of the panel, the panel's first paragraph after its heading.
    const y = (selector: string) => page.$eval(selector, (el) => el.getBoundingClientRect().y);
    const tableYs = await page.$$eval('#usage-ledger table', (ts) => ts.map((t) => t.getBoundingClientRect().y));
    expect(tableYs).toHaveLength(3);
    expect(await y('#usage-ledger-finding')).toBeLessThan(Math.min(...tableYs));
    expect(await page.$eval('#usage-ledger h2 + p', (p) => p.id)).toBe('usage-ledger-finding');

    const byType = await tableRows(page, 'usage-ledger-by-type');
    const group = json.usage_ledger!.by_subagent_type_and_model[0];
    expect(byType[0]).toEqual([
      'general-purpose',
      'claude-opus-5-5',
      String(a.runs),
      int(group.requests!),
      int(group.input_tokens!),
      int(group.output_tokens!),
      int(group.cache_read_input_tokens!),
      int(group.cache_creation_input_tokens!),
      int(a.subagent),
      '0',
    ]);
    expect(byType[1].slice(0, 2)).toEqual(["parents' own", 'claude-opus-5-5']);
    expect(byType[1][8]).toBe(int(a.parent));
    const share = pct(a.subagent, a.subagent + a.parent);
    const row = [
      String(a.runs),
      int(a.subagent),
      int(a.parent),
      int(a.subagent + a.parent),
      share,
      int(a.reported),
      String(a.reportedRuns),
      pct(a.reported, a.subagent),
    ];
    expect(await tableRows(page, 'usage-ledger-by-card')).toEqual([[CARD_A, '1', ...row]]);
    expect(await tableRows(page, 'usage-ledger-by-session')).toEqual([[SESSION_A, ...row]]);
    const text = await page.$eval('body', (b) => (b as HTMLElement).innerText);
    expect(text).not.toContain(SESSION_B);
    expect(text).not.toContain('reviewer'); // card B's runs' type
    // SUBAGENT_CONTEXT_SCREENSHOT_DIR keeps the panel's screenshot for a person to look at.
    const keep = process.env.SUBAGENT_CONTEXT_SCREENSHOT_DIR;
    if (keep) await (await page.$('#usage-ledger'))!.screenshot({ path: join(keep, `usage-ledger-${dialect}.png`) });

    // 400 px: the tables scroll inside their own boxes; the page is no wider than the screen.
    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await page.close();
  }, 120_000);

  it('the whole store: both cards and sessions, markup in a subagent_type shown as text', async () => {
    const file = join(dir, 'all.html');
    await cli(['report', ...store.args, '--html', file]);
    const { page } = await open(file);
    const [a, b] = [await ledgerSums(store, [SESSION_A]), await ledgerSums(store, [SESSION_B])];
    const finding = await page.$eval('#usage-ledger-finding', (p) => (p as HTMLElement).innerText);
    expect(finding).toContain(`of these 2 cards' ${int(a.subagent + a.parent + b.subagent + b.parent)} tokens`);
    expect((await tableRows(page, 'usage-ledger-by-session')).map((r) => r[0])).toEqual([SESSION_A, SESSION_B]);
    const types = (await tableRows(page, 'usage-ledger-by-type')).map((r) => r[0]);
    expect(types).toContain(MARKUP_TYPE);
    expect(await page.$$('#usage-ledger img')).toHaveLength(0);
    expect(await page.title()).toBe('Subagent fan-out report');
    await page.close();
  }, 120_000);
});
