// The library renders what the CLI shows: formatReport() and renderReportHtml() from the
// package's root entry, on a report read from a real store on each dialect, are the terminal
// text and the page `subagent-context report` prints and writes, byte for byte.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as Root from '../src/index.js';
import { assertBuilt, databaseArgs, runCliBinary } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

let root: typeof Root;
beforeAll(async () => {
  assertBuilt();
  // The built root entry, as a host imports it (`import { formatReport } from 'subagent-context'`).
  root = (await import(pathToFileURL(resolve('dist/src/index.js')).href)) as typeof Root;
});

describeBothDialects('formatReport() and renderReportHtml() from the root entry', (dialect) => {
  let db: TestDb;
  let dir: string;
  let report: Root.SubagentContextReport;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-render-api-'));
    report = await db.store().report();
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('formatReport(report) is the terminal text the CLI prints', async () => {
    const run = await runCliBinary(['report', ...databaseArgs(db)]);
    expect(run.code, run.stderr).toBe(0);
    const where = run.stdout.match(/^subagent-context report: (.*)$/m)![1];
    expect(root.formatReport(report, { where })).toBe(run.stdout);
    // Without a store name the heading says only what it is; everything after it is the same.
    const text = root.formatReport(report);
    expect(text.split('\n')[0]).toBe('subagent-context report');
    expect(text.split('\n').slice(1)).toEqual(run.stdout.split('\n').slice(1));
    expect(text).toMatch(/^Fan-out: subagents per turn$/m);
    expect(text).toMatch(/^\s+\d+ │[█▏▎▍▌▋▊▉]+ \d+ turns?$/m);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('renderReportHtml(report) is the complete page `report --html` writes', async () => {
    const file = join(dir, `page-${dialect}.html`);
    const run = await runCliBinary(['report', ...databaseArgs(db), '--html', file]);
    expect(run.code, run.stderr).toBe(0);
    const written = readFileSync(file, 'utf8');
    const generatedAt = new Date(written.match(/<time class="instant" datetime="([^"]+)">/)![1]);
    const where = run.stdout.match(/^subagent-context report: (.*)$/m)![1];
    expect(root.renderReportHtml(report, { where, generatedAt })).toBe(written);

    const page = root.renderReportHtml(report, { generatedAt: new Date('2026-12-01T09:30:00Z') });
    expect(page).toMatch(/^<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
    expect(page.endsWith('</html>\n')).toBe(true);
    expect(page).toContain('<title>Subagent fan-out report</title>');
    expect(page).toContain('2026-12-01T09:30:00Z');
    expect(page).not.toContain('class="where"');
    expect(page).not.toMatch(/<script|<link|<img|url\(|@import/i);
    expect(page.match(/<figure class="chart"/g)!.length).toBeGreaterThanOrEqual(4);
    // Reproducible: the same report and options give the same page.
    expect(root.renderReportHtml(report, { generatedAt: new Date('2026-12-01T09:30:00Z') })).toBe(page);
  });

  it('renders a report that went through JSON, as a host that stores or sends it would have it', () => {
    const copy = JSON.parse(JSON.stringify(report)) as Root.SubagentContextReport;
    expect(root.formatReport(copy)).toBe(root.formatReport(report));
    const at = new Date('2026-12-01T09:30:00Z');
    expect(root.renderReportHtml(copy, { generatedAt: at })).toBe(root.renderReportHtml(report, { generatedAt: at }));
  });
});
