// The HTML page against injection (issue 31 item 4): its markup is written with one
// auto-escaping template (src/render/html.ts), so a string from the database or the caller
// reaches the page only as text. On each dialect a store holds markup in subagent_type, model
// and a key value, the report is scoped by a task id that is markup too, and the page
// `report --markup` writes is checked: every tag in it is one the package writes, no event
// handler attribute exists, and each hostile string is there escaped. The template itself is
// checked first, so the page check is known to be able to fail.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { renderReportHtml, type SubagentContextReport } from '../src/index.js';
import { parseInstant } from '../src/instant.js';
import { escapeHtml, markup, joinHtml, trustedHtml } from '../src/render/html.js';
import { databaseArgs } from './helpers/cli.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb } from './helpers/test-db.js';

const TYPE = '<script>alert(1)</script>';
const MODEL = `"><img src=x onerror=alert(2)>`;
const KEY = `'><svg onload=alert(3)>`;
const TASK = '<iframe src="javascript:alert(4)"></iframe>&amp;';
const WHERE = `</title><style>body{display:none}</style>`;

/** Every tag the page writes; anything else in it is an injection. */
const OWN_TAGS = new Set(
  'html head meta title style body main header h1 h2 p dl dt dd span time section div figure figcaption svg line text rect path ul li bdi table thead tbody tr th td b i ol footer'.split(
    ' ',
  ),
);
const foreignTags = (page: string) => [...page.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]).filter((tag) => !OWN_TAGS.has(tag));
/**
 * Event handler attributes: in a tag (which runs to the next `>`, since a `>` in a value is
 * escaped), outside its quoted values (whose own quotes are escaped, so a value runs to the next `"`).
 */
const handlers = (page: string) => (page.match(/<[a-zA-Z][^>]*>/g) ?? []).flatMap((tag) => tag.replace(/"[^"]*"/g, '""').match(/\son[a-z]+\s*=/gi) ?? []);

describe('markup``: the page template', () => {
  it('escapes every interpolated text and number, keeps markup it made, joins lists', () => {
    expect(markup`<p title="${`"'&<>`}">${'<b>x</b>'}</p>`.text).toBe('<p title="&quot;&#39;&amp;&lt;&gt;">&lt;b&gt;x&lt;/b&gt;</p>');
    const inner = markup`<b>${'a&b'}</b>`;
    expect(markup`<p>${inner}${[inner, '<i>']}${null}${undefined}${false}${0}</p>`.text).toBe('<p><b>a&amp;b</b><b>a&amp;b</b>&lt;i&gt;0</p>');
    expect(joinHtml([inner, '<'], '\n').text).toBe('<b>a&amp;b</b>\n&lt;');
    expect(trustedHtml('a > b').text).toBe('a > b');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('the checks below find an injected tag and handler (so they can fail)', () => {
    const injected = `<p>${TYPE}</p><rect x="1${MODEL}"/> onclick= as text <rect data-label="x onclick=y"/>`;
    expect(foreignTags(injected)).toEqual(['script', 'script', 'img']);
    expect(handlers(injected)).toEqual([' onerror=']);
  });
});

describeBothDialects('report --html: markup from the database is text on the page', (dialect) => {
  it('subagent_type, model, a key value and a task id holding markup: no foreign tag, no handler, each shown escaped', async () => {
    const db = await openTestDb(dialect, 'package');
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-injection-'));
    try {
      await seedReportFixture(db);
      const at = hostTimestamp(db, parseInstant('2026-03-02T00:00:00Z')!);
      await insertSubagentRow(db, {
        id: 'hostile',
        sessionId: 's1',
        taskId: 'T1',
        turnId: 'hostile-turn',
        source: 'live',
        executionId: 'exec-h',
        observedAt: at,
        settledAt: at,
        totalTokens: 9_000_000, // the largest group: drawn in every chart that names groups
        subagentType: TYPE,
        model: MODEL,
      });
      await db.query(`UPDATE kandev_meta SET value = $1 WHERE key = 'subagent_context_backfill_through'`, [KEY]);
      const file = join(dir, 'page.html');
      let err = '';
      const code = await runCli(['report', ...databaseArgs(db), '--task', 'T1', '--task', TASK, '--html', file], {
        out: () => {},
        err: (t) => void (err += t),
      });
      expect([code, err]).toEqual([0, '']);
      const page = readFileSync(file, 'utf8');

      expect(foreignTags(page)).toEqual([]);
      expect(handlers(page)).toEqual([]);
      for (const text of [TYPE, MODEL, KEY, TASK]) expect(page, text).toContain(escapeHtml(text));
      // The label is drawn in the token charts (bars, tooltips, data attributes), not merely quoted once.
      expect(page.split(escapeHtml(TYPE)).length - 1).toBeGreaterThanOrEqual(3);

      // The page's one caller-given string, through the library entry.
      const report: SubagentContextReport = JSON.parse(
        await (async () => {
          let out = '';
          await runCli(['report', ...databaseArgs(db), '--json'], { out: (t) => void (out += t), err: () => {} });
          return out;
        })(),
      ) as SubagentContextReport;
      const withWhere = renderReportHtml(report, { where: WHERE, generatedAt: new Date('2026-12-01T09:30:00Z') });
      expect(foreignTags(withWhere)).toEqual([]);
      expect(withWhere).toContain(`<p class="where">${escapeHtml(WHERE)}</p>`);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
