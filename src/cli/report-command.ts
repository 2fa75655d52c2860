// `subagent-context report`: store.report() on a database opened read-only, printed for a
// person (Unicode bar charts), as JSON (--json), and/or written as one self-contained HTML
// page (--html FILE). docs/report.md says what each figure counts.
import { matchDialect } from '../dialect.js';
import { SubagentContextError } from '../errors.js';
import { renderReportHtml } from '../render/html-page.js';
import { REPORT_USAGE_CODES, type ReportErrorCode } from '../report/errors.js';
import type { ReportOptions, SubagentContextReport } from '../report/types.js';
import { CliError, readerFailure, usageError } from './cli-error.js';
import type { CliCommand } from './command.js';
import { existsSync } from 'node:fs';
import { DATABASE_OPTIONS, describeTarget, withDatabase } from './database.js';
import { chooseTarget, chosenTargetNote, requireDefaultStore } from './default-target.js';
import { EXIT } from './exit-codes.js';
import { formatReport } from '../render/format-report.js';
import { checkHtmlTarget, writeHtmlFile, type HtmlTarget } from './html-output.js';
import { windowInstant } from './window-option.js';

/** A report() rejection caused by the arguments is a usage error; any other is the database's, like health's. Either keeps it on `cause`. */
export function reportCommandError(err: unknown): unknown {
  if (!(err instanceof SubagentContextError)) return err;
  // The library names its options (`since`); the user typed the CLI's (`--since`).
  if (err.code === 'invalid_report_window')
    return usageError(err.message.replace(/^(since|until) /, '--$1 ').replace(/ must be before until \(/, ' must be before --until ('), err);
  if (REPORT_USAGE_CODES.includes(err.code as ReportErrorCode)) return usageError(err.message, err);
  return readerFailure(err);
}

/** The page, or an internal error: a renderer that throws is this CLI's bug, not the user's arguments. */
function renderPage(report: SubagentContextReport, where: string): string {
  try {
    return renderReportHtml(report, { where });
  } catch (err) {
    throw new CliError(EXIT.internal, `the HTML page could not be rendered: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export const reportCommand: CliCommand = {
  summary: 'measure fan-out, cards, tokens and executions, with notes on how far each figure may be read (charts, JSON or HTML)',
  synopsis: '[--sqlite FILE | --postgres URL] [--since T] [--until T] [--task ID]... [--json] [--html FILE [--force]]',
  details: [
    'Without --sqlite/--postgres: $SUBAGENT_CONTEXT_DB (a file path or a postgres:// URL), else the',
    "proxy's default store. Counts subagent rows observed at or after --since and before --until:",
    'RFC3339 instants (2026-08-01T00:00:00Z, 2026-08-01T02:00:00+02:00) or plain dates (2026-08-01',
    'means midnight UTC). --task ID (repeatable) scopes every figure to those tasks.',
    '--json prints the report as JSON; --html FILE also writes one self-contained page with',
    'charts (no network, no scripts): never onto the database or its -wal/-shm, never through',
    'a symbolic link, never over an existing file unless --force; written to a temporary file',
    'and renamed into place. Opens a SQLite file read-only (never creates one).',
    'Exit status: 0 report produced, 2 usage error or a refused --html FILE, 7 database error,',
    '73 the page could not be written (no space, no permission), 8 driver not installed, 70 internal error.',
  ].join('\n'),
  options: {
    ...DATABASE_OPTIONS,
    since: { type: 'string' },
    until: { type: 'string' },
    task: { type: 'string', multiple: true },
    html: { type: 'string' },
    force: { type: 'boolean', default: false },
  },
  async run(values, io) {
    const chosen = chooseTarget(values as { sqlite?: string; postgres?: string });
    const { target } = chosen;
    if (values.html === '') throw usageError('--html needs a file path');
    if (values.force && typeof values.html !== 'string') throw usageError('--force only applies to --html FILE');
    const html: HtmlTarget | null =
      typeof values.html === 'string'
        ? { path: values.html, force: values.force === true, databaseFile: matchDialect(target, { sqlite: ({ file }) => file, postgres: () => undefined }) }
        : null;
    if (html) checkHtmlTarget(html); // refused before the report runs, and checked again as the page lands
    const options: ReportOptions = {};
    if (typeof values.since === 'string') options.since = windowInstant('since', values.since);
    if (typeof values.until === 'string') options.until = windowInstant('until', values.until);
    if (Array.isArray(values.task)) {
      if (values.task.includes('')) throw usageError('--task needs a value');
      options.taskIds = values.task.map(String);
    }
    const where = describeTarget(target);
    requireDefaultStore(chosen, existsSync);
    const note = chosenTargetNote(chosen, 'reading');
    if (note) io.err(`subagent-context: ${note}`);
    return withDatabase(target, { readonly: true }, async (db) => {
      let report;
      try {
        report = await db.store.report(options);
      } catch (err) {
        throw reportCommandError(err);
      }
      if (html) writeHtmlFile(html, renderPage(report, where));
      io.out(values.json ? `${JSON.stringify(report)}\n` : formatReport(report, { where }));
      if (html && !values.json) io.out(`wrote ${html.path}\n`);
      return EXIT.ok;
    });
  },
};
