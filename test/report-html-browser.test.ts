// The --html page in a real browser: Debian's chromium, headless, driven by playwright-core
// (which never downloads a browser of its own). For a real store on each dialect the page
// written by the built CLI is opened from disk with every network request refused and
// counted, screenshotted, and checked: one <rect class="bar"> per non-empty bucket of each
// histogram, each with a non-zero rendered size and heights in the order of the values, and
// pixels of each chart's bar colour inside that chart's region of the decoded screenshot.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SubagentContextReport } from '../src/index.js';
import { assertBuilt, databaseArgs, runCliBinary } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// The fills src/render/html-page.ts gives each chart's bars.
const FILL: Record<string, [number, number, number]> = {
  'fan-out-known': [0x0f, 0x76, 0x6e],
  'fan-out-unknown': [0xc2, 0x41, 0x0c],
  'token-distribution': [0x43, 0x38, 0xca],
  'tokens-by-subagent-type': [0x43, 0x38, 0xca],
};

beforeAll(assertBuilt);

interface BarBox {
  value: number;
  width: number;
  height: number;
}

async function barsOf(page: Page, chart: string): Promise<BarBox[]> {
  return page.$$eval(`figure[data-chart="${chart}"] rect.bar`, (rects) =>
    rects.map((r) => {
      const box = r.getBoundingClientRect();
      return { value: Number(r.getAttribute('data-value')), width: box.width, height: box.height };
    }),
  );
}

/** Pixels within `tolerance` of `rgb` inside the chart's bounding box of the screenshot. */
function colouredPixels(png: PNG, box: { x: number; y: number; width: number; height: number }, rgb: [number, number, number], tolerance = 12): number {
  let count = 0;
  for (let y = Math.max(0, Math.floor(box.y)); y < Math.min(png.height, Math.ceil(box.y + box.height)); y++) {
    for (let x = Math.max(0, Math.floor(box.x)); x < Math.min(png.width, Math.ceil(box.x + box.width)); x++) {
      const i = (y * png.width + x) * 4;
      if (Math.abs(png.data[i] - rgb[0]) <= tolerance && Math.abs(png.data[i + 1] - rgb[1]) <= tolerance && Math.abs(png.data[i + 2] - rgb[2]) <= tolerance)
        count++;
    }
  }
  return count;
}

describeBothDialects('report: the HTML page renders its charts in chromium', (dialect) => {
  let db: TestDb;
  let dir: string;
  let context: BrowserContext;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-browser-'));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      args: ARGS,
      headless: true,
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
      offline: true,
    });
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every histogram bucket is one visible bar, and each chart region holds its bar colour', async () => {
    const file = join(dir, 'report.html');
    const run = await runCliBinary(['report', ...databaseArgs(db), '--html', file]);
    expect(run.code, run.stderr).toBe(0);
    const report: SubagentContextReport = await db.store().report();
    expect(report.fan_out.known.length).toBeGreaterThan(2);
    expect(report.fan_out.unknown.length).toBeGreaterThan(1);

    const page = await context.newPage();
    const fetched: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file://')) fetched.push(r.url());
    });
    await page.route(/^(?!file:)/, (route) => route.abort());
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    const shot = join(dir, `report-${dialect}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    expect(fetched).toEqual([]);
    expect(await page.$$('script')).toHaveLength(0);

    const expectations: [string, { value: number }[]][] = [
      ['fan-out-known', report.fan_out.known.map((b) => ({ value: b.turns }))],
      ['fan-out-unknown', report.fan_out.unknown.map((b) => ({ value: b.turns }))],
      ['token-distribution', report.tokens.distribution.filter((b) => b.subagents > 0).map((b) => ({ value: b.subagents }))],
    ];
    for (const [chart, buckets] of expectations) {
      const bars = await barsOf(page, chart);
      expect(
        bars.map((b) => b.value),
        chart,
      ).toEqual(buckets.map((b) => b.value));
      for (const b of bars) {
        expect(b.width, chart).toBeGreaterThan(1);
        expect(b.height, chart).toBeGreaterThan(1);
      }
      // Taller bar, larger value: heights are in the order of the values.
      const byValue = [...bars].sort((a, b) => a.value - b.value);
      for (let i = 1; i < byValue.length; i++)
        if (byValue[i].value > byValue[i - 1].value) expect(byValue[i].height, chart).toBeGreaterThan(byValue[i - 1].height);
    }

    const png = PNG.sync.read(readFileSync(shot));
    for (const [chart, rgb] of Object.entries(FILL)) {
      const box = await page.$eval(`figure[data-chart="${chart}"] svg`, (svg) => {
        const r = svg.getBoundingClientRect();
        return { x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height };
      });
      expect(box.width * box.height, chart).toBeGreaterThan(10_000);
      // A drawn bar is at least a few hundred pixels of its colour; a blank region has none.
      expect(colouredPixels(png, box, rgb), chart).toBeGreaterThan(300);
    }
    // The finding comes before the first chart; the caveats, as numbered notes, after the last.
    const y = (selector: string) => page.$eval(selector, (el) => el.getBoundingClientRect().y);
    const findingY = await y('#finding');
    const chartY = await y('figure[data-chart="fan-out-known"]');
    const lastChartY = Math.max(...(await page.$$eval('figure.chart', (els) => els.map((el) => el.getBoundingClientRect().bottom))));
    expect(findingY).toBeLessThan(chartY);
    expect(await y('#caveats')).toBeGreaterThan(lastChartY);
    expect(await page.$$eval('#caveats ol > li', (li) => li.length)).toBe(report.caveats.length);
    // SUBAGENT_CONTEXT_SCREENSHOT_DIR keeps the screenshot for a person to look at.
    const keep = process.env.SUBAGENT_CONTEXT_SCREENSHOT_DIR;
    if (keep) copyFileSync(shot, join(keep, `report-${dialect}.png`));
    await page.close();
  }, 120_000);

  it('reads on a 400 px screen, in dark mode and on paper; one fan-out scale with a legend; integer ticks; the unmeasured drawn', async () => {
    const file = join(dir, 'layout.html');
    const run = await runCliBinary(['report', ...databaseArgs(db), '--html', file]);
    expect(run.code, run.stderr).toBe(0);
    const report: SubagentContextReport = await db.store().report();
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    const keep = process.env.SUBAGENT_CONTEXT_SCREENSHOT_DIR;
    const page = await context.newPage();
    await page.goto(`file://${file}`, { waitUntil: 'load' });

    // Generated-at time and package version.
    const generated = await page.$eval('#generated', (el) => (el as HTMLElement).innerText);
    expect(generated).toMatch(new RegExp(`^Generated \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z by subagent-context ${version.replace(/\./g, '\\.')}$`));

    // Every value axis counts turns or subagents: its ticks are distinct integers, in order.
    const ticks = await page.$$eval('figure.chart svg', (svgs) => svgs.map((svg) => [...svg.querySelectorAll('text.y-tick')].map((t) => t.textContent ?? '')));
    expect(ticks.filter((t) => t.length).length).toBeGreaterThanOrEqual(3);
    for (const axis of ticks.filter((t) => t.length)) {
      const values = axis.map((t) => Number(t.replace(/,/g, '')));
      expect(values.every(Number.isInteger), axis.join(' ')).toBe(true);
      expect(new Set(values).size, axis.join(' ')).toBe(values.length);
      expect([...values].sort((a, b) => a - b)).toEqual(values);
    }

    // The two fan-out charts: a legend naming both, one value scale and one subagents axis.
    expect(await page.$$eval('#fan-out-legend .swatch.known, #fan-out-legend .swatch.unknown', (s) => s.length)).toBe(2);
    const axis = (chart: string) =>
      page.$eval(`figure[data-chart="${chart}"] svg`, (svg) => ({
        y: [...svg.querySelectorAll('text.y-tick')].map((t) => t.textContent),
        x: [...svg.querySelectorAll('text.tick:not(.y-tick)')].map((t) => t.textContent),
      }));
    const [known, unknown] = [await axis('fan-out-known'), await axis('fan-out-unknown')];
    expect(known).toEqual(unknown);
    const turnsMax = Math.max(...[...report.fan_out.known, ...report.fan_out.unknown].map((b) => b.turns));
    expect(Number(known.y.at(-1))).toBeGreaterThanOrEqual(turnsMax);

    // NULL is not 0: each token group draws its unmeasured subagents as a hatched strip, as many as the report counts.
    const strips = await page.$$eval('figure[data-chart="tokens-by-subagent-type"] rect.unmeasured', (rects) =>
      rects.map((r) => ({
        count: Number(r.getAttribute('data-count')),
        width: r.getBoundingClientRect().width,
        hatch: r.nextElementSibling?.getAttribute('class') === 'hatch-line' ? (r.nextElementSibling.getAttribute('d') ?? '') : '',
      })),
    );
    const unmeasuredGroups = report.tokens.by_subagent_type.filter((g) => g.unmeasured > 0);
    expect(unmeasuredGroups.length).toBeGreaterThan(0);
    expect(strips.map((x) => x.count).sort()).toEqual(unmeasuredGroups.map((g) => g.unmeasured).sort());
    for (const strip of strips) {
      expect(strip.width).toBeGreaterThan(1);
      expect(strip.hatch).toMatch(/^(M[\d.]+ [\d.]+L[\d.]+ [\d.]+)+$/); // drawn hatched, never a solid bar
    }
    expect(await page.$$eval('#tokens-legend .swatch.unmeasured', (s) => s.length)).toBe(1);

    // 400 px: nothing wider than the screen, and no instant broken over two lines.
    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    const instantLines = await page.$$eval('.instant', (els) => els.map((el) => el.getClientRects().length));
    expect(instantLines.length).toBeGreaterThan(3);
    expect(instantLines.every((n) => n === 1)).toBe(true);
    // 400 px: every chart label is at least 11 px as drawn; a chart or the token table too wide
    // for the screen scrolls inside its own box, and shows its hint exactly then.
    const boxes = () =>
      page.evaluate(() => {
        const shown = (el: Element | null) => el !== null && el.getBoundingClientRect().height > 0;
        const charts = [...document.querySelectorAll('figure.chart')].flatMap((fig) => {
          const svg = fig.querySelector('svg');
          if (!svg) return [];
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
          return [
            {
              id: fig.getAttribute('data-chart'),
              smallest: Math.min(...sizes),
              scrolls: fig.scrollWidth > fig.clientWidth,
              hint: shown(fig.querySelector('.scroll-hint')),
            },
          ];
        });
        const wrap = document.querySelector('.table-wrap.wide')!;
        return { charts, table: { scrolls: wrap.scrollWidth > wrap.clientWidth, hint: shown(wrap.querySelector('.scroll-hint')) } };
      });
    const narrow = await boxes();
    expect(narrow.charts.length).toBeGreaterThanOrEqual(5);
    for (const c of narrow.charts) {
      expect(c.smallest, `${c.id}: smallest label in px`).toBeGreaterThanOrEqual(11);
      expect(c.hint, `${c.id}: hint shown exactly when it scrolls`).toBe(c.scrolls);
    }
    expect(narrow.table).toEqual({ scrolls: true, hint: true });
    if (keep) await page.screenshot({ path: join(keep, `report-${dialect}-400px.png`), fullPage: true });

    // Dark mode under prefers-color-scheme: dark.
    await page.setViewportSize({ width: 1280, height: 900 });
    // On a desktop screen nothing scrolls sideways and no hint shows; labels stay at least 11 px.
    const wide = await boxes();
    for (const c of wide.charts) expect([c.id, c.smallest >= 11, c.scrolls, c.hint]).toEqual([c.id, true, false, false]);
    expect(wide.table).toEqual({ scrolls: false, hint: false });
    const luminance = () =>
      page.evaluate(() => {
        const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\d+/g)!.map(Number);
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      });
    expect(await luminance()).toBeGreaterThan(0.8);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await luminance()).toBeLessThan(0.2);
    if (keep) await page.screenshot({ path: join(keep, `report-${dialect}-dark.png`), fullPage: true });

    // On paper: white, flat, one chart per row, whatever the screen's scheme; and it prints to PDF.
    await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
    expect(await luminance()).toBeCloseTo(1, 6);
    expect(await page.$eval('section.panel', (el) => getComputedStyle(el).boxShadow)).toBe('none');
    expect(await page.$eval('.charts', (el) => getComputedStyle(el).gridTemplateColumns.split(' ').length)).toBe(1);
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.length).toBeGreaterThan(20_000);
    if (keep) writeFileSync(join(keep, `report-${dialect}.pdf`), pdf);
    await page.close();
  }, 120_000);

  it('a store with no rows renders placeholders, not empty axes', async () => {
    const empty = await openTestDb(dialect, 'package');
    try {
      const file = join(dir, 'empty.html');
      const run = await runCliBinary(['report', ...databaseArgs(empty), '--html', file]);
      expect(run.code, run.stderr).toBe(0);
      const page = await context.newPage();
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      expect(await page.$$('rect.bar')).toHaveLength(0);
      for (const chart of ['fan-out-known', 'fan-out-unknown', 'token-distribution']) {
        const text = await page.$eval(`figure[data-chart="${chart}"] p.empty`, (p) => (p as HTMLElement).innerText);
        expect(text.length, chart).toBeGreaterThan(10);
      }
      expect(await page.$eval('.state', (el) => el.textContent)).toBe('not_activated');
      await page.close();
    } finally {
      await empty.close();
    }
  }, 120_000);
});
