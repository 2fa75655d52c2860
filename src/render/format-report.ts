// The report for a terminal: what it found in plain words first, then fan-out, cards,
// provenance, tokens and executions with Unicode bar charts, the usage ledger when the report
// carries one (./format-usage-ledger.ts), then the caveats as numbered
// notes in plain words (src/render/notes.ts). Every string from the database is made visible
// (escapes for control characters) and clipped by grapheme: see src/render/display-text.ts.
// `--json` prints the report itself instead, verbatim.
import { describeScope, describeWindow, fanOutBars, maxOf, tokenDistributionBars, tokenGroupBars, type Bar } from './chart-data.js';
import { STATE_MEANING } from './state-meaning.js';
import { clipVisible, displayWidth, padStartVisible, visibleLines } from './display-text.js';
import { findingLines } from './finding.js';
import { formatInt, formatRatio, plural } from '../human-numbers.js';
import { NOTES_EXPLAINED, noteLines } from './notes.js';
import type { SubagentContextReport } from '../report/types.js';
import { usageLedgerSection } from './format-usage-ledger.js';

const BAR_WIDTH = 36;
const LABEL_WIDTH = 28;
/** Columns a key value may take: a stored key is the host's data and may be anything. */
const KEY_WIDTH = 64;
const PARTIAL = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar in eighths of a character; any non-zero value shows at least a sliver. */
export function unicodeBar(value: number, max: number, width = BAR_WIDTH): string {
  if (value <= 0 || max <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + PARTIAL[eighths % 8];
}

export function chart(bars: Bar[], unit: (n: number) => string, empty: string, indent = '    '): string[] {
  if (bars.length === 0 || bars.every((b) => b.value === 0)) return [`${indent}(${empty})`];
  const max = maxOf(bars.map((b) => b.value));
  const width = maxOf(bars.map((b) => displayWidth(clipVisible(b.label, LABEL_WIDTH))));
  return bars.map((b) => {
    const drawn = unicodeBar(b.value, max);
    return `${indent}${padStartVisible(b.label, width)} │${drawn}${drawn ? ' ' : ''}${unit(b.value)}${b.note ? `  (${b.note})` : ''}`;
  });
}

function keyValue(value: string | null, emptyMeaning: string): string {
  return value === null ? 'absent' : value === '' ? `''  ${emptyMeaning}` : clipVisible(value, KEY_WIDTH);
}

function fanOutSection(r: SubagentContextReport): string[] {
  const f = r.fan_out;
  const turns = (n: number) => plural(n, 'turn');
  const knownTitle =
    f.known_from === null
      ? 'known fan-out: none (no boundary may be published)'
      : `known fan-out: turns whose first subagent was observed at or after ${f.known_from} (${f.known_from_key})`;
  return [
    'Fan-out: subagents per turn',
    `  ${knownTitle}`,
    ...(f.known_from === null ? [] : chart(fanOutBars(f.known), turns, 'no turn with subagents')),
    f.known_from === null
      ? '  unknown fan-out: every turn (no boundary may be published); counts are lower bounds, never zeros'
      : '  unknown fan-out: turns that began before the boundary; their counts are lower bounds, never zeros',
    ...chart(fanOutBars(f.unknown), turns, 'no turn with subagents'),
    `  rows without a turn: ${formatInt(f.rows_without_turn)} · turns continuing past until: ${formatInt(f.turns_past_until)} · turns begun before since: ${formatInt(f.turns_before_since)}`,
  ];
}

function cardsSection(r: SubagentContextReport): string[] {
  const c = r.cards;
  return [
    'Cards: sessions per card vs contexts per card',
    `  ${plural(c.tasks, 'card')} · ${plural(c.sessions, 'session')} · ${plural(c.subagent_contexts, 'subagent context')} · ${formatInt(c.tasks_with_subagents)} of the cards fanned out`,
    ...chart(
      [
        { label: 'sessions per card', value: c.sessions_per_card ?? 0 },
        { label: 'contexts per card', value: c.contexts_per_card ?? 0, note: 'sessions + subagent contexts' },
      ],
      formatRatio,
      'no card was active in the window',
    ),
  ];
}

function provenanceSection(r: SubagentContextReport): string[] {
  const p = r.provenance;
  const before = p.live_before_capture_since === null ? '' : ` (${formatInt(p.live_before_capture_since)} observed before capture_since)`;
  return [
    'Provenance: live and backfilled rows, never compared like-for-like',
    `  ${plural(p.rows, 'row')}: ${formatInt(p.live)} live${before} · ${formatInt(p.backfill)} backfill`,
  ];
}

function tokensSection(r: SubagentContextReport): string[] {
  const t = r.tokens;
  const tokens = (n: number) => `${formatInt(n)} tokens`;
  return [
    'Tokens of settled subagents (NULL is unmeasured, never 0)',
    `  settled ${formatInt(t.settled)} · measured ${formatInt(t.measured)} · unmeasured ${formatInt(t.unmeasured)} · not settled ${formatInt(t.outstanding)}`,
    `  total ${tokens(t.total_tokens)}${t.mean_tokens === null ? '' : ` · mean ${tokens(Math.round(t.mean_tokens))} per measured subagent`}`,
    '  distribution of total_tokens (measured subagents)',
    ...chart(tokenDistributionBars(r), (n) => plural(n, 'subagent'), 'nothing measured'),
    '  by source',
    ...chart(tokenGroupBars(t.by_source, 'source', '(none)'), tokens, 'nothing settled'),
    '  by subagent_type',
    ...chart(tokenGroupBars(t.by_subagent_type, 'subagent_type', '(not reported)'), tokens, 'nothing settled'),
    '  by model',
    ...chart(tokenGroupBars(t.by_model, 'model', '(not reported)'), tokens, 'nothing settled'),
  ];
}

function executionsSection(r: SubagentContextReport): string[] {
  const e = r.executions;
  const distinct = e.distinct === null ? 'not counted (execution_since is absent: no execution id is an identity)' : formatInt(e.distinct);
  const sinceKey =
    e.unknown_live_rows_since_execution_since === null ? '' : ` · ${formatInt(e.unknown_live_rows_since_execution_since)} live since execution_since`;
  return [
    "Executions ('unknown' is never an execution)",
    `  distinct executions: ${distinct}`,
    `  rows with an execution id: ${formatInt(e.identified_rows)} · 'unknown' rows: ${formatInt(e.unknown_rows)} (${formatInt(e.unknown_backfill_rows)} backfill${sinceKey})`,
  ];
}

/** The notes after the charts: how far each figure above may be read, then the keys they rest on. */
function notesSection(r: SubagentContextReport): string[] {
  return [
    `Notes: how to read these figures (${NOTES_EXPLAINED})`,
    ...noteLines(r.caveats).map((l) => `  ${l}`),
    `  keys    capture_since ${keyValue(r.keys.capture_since, '')} · backfill_through ${keyValue(r.keys.backfill_through, '(sentinel: there was no history to backfill)')} · execution_since ${keyValue(r.keys.execution_since, '')}`,
  ];
}

/** What formatReport() and renderReportHtml() print besides the report itself. */
export interface ReportViewOptions {
  /** Which store the report read, shown in the heading (the CLI passes "SQLite file …" or the URL without its password); omitted by default. */
  where?: string;
}

/**
 * The report as the terminal text `subagent-context report` prints: plain text with Unicode
 * bar charts, ending in a newline. No colour and no terminal width: it reads the same in a
 * pipe, a log or a file. Strings from the database are made visible (escapes) and clipped.
 */
export function formatReport(r: SubagentContextReport, options: ReportViewOptions = {}): string {
  const blocks: string[][] = [
    [
      options.where === undefined ? 'subagent-context report' : `subagent-context report: ${options.where}`,
      `  window  ${describeWindow(r.window)}`,
      `  scope   ${clipVisible(describeScope(r.task_ids), 120)}`,
      `  state   ${r.state}: ${STATE_MEANING[r.state]}`,
    ],
    ['What it found', ...findingLines(r).map((l) => `  ${l}`)],
    fanOutSection(r),
    cardsSection(r),
    provenanceSection(r),
    tokensSection(r),
    executionsSection(r),
    ...(r.usage_ledger ? [usageLedgerSection(r.usage_ledger)] : []),
    notesSection(r),
  ];
  return visibleLines(`${blocks.map((b) => b.join('\n')).join('\n\n')}\n`);
}
