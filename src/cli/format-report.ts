// The report for a terminal: the caveats first (they say how to read every figure below),
// then fan-out, cards, provenance, tokens and executions, with Unicode bar charts for the
// fan-out histograms and the token distribution. `--json` prints the report itself instead.
import {
  describeScope,
  describeWindow,
  fanOutBars,
  formatInt,
  formatRatio,
  plural,
  STATE_MEANING,
  tokenDistributionBars,
  tokenGroupBars,
  type Bar,
} from '../report/chart-data.js';
import type { SubagentContextReport } from '../report/types.js';

const BAR_WIDTH = 36;
const LABEL_WIDTH = 28;
const PARTIAL = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar in eighths of a character; any non-zero value shows at least a sliver. */
export function unicodeBar(value: number, max: number, width = BAR_WIDTH): string {
  if (value <= 0 || max <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + PARTIAL[eighths % 8];
}

const clip = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

function chart(bars: Bar[], unit: (n: number) => string, empty: string): string[] {
  if (bars.length === 0 || bars.every((b) => b.value === 0)) return [`    (${empty})`];
  const max = Math.max(...bars.map((b) => b.value));
  const width = Math.min(LABEL_WIDTH, Math.max(...bars.map((b) => b.label.length)));
  return bars.map((b) => {
    const drawn = unicodeBar(b.value, max);
    return `    ${clip(b.label, width).padStart(width)} │${drawn}${drawn ? ' ' : ''}${unit(b.value)}${b.note ? `  (${b.note})` : ''}`;
  });
}

function keyValue(value: string | null, emptyMeaning: string): string {
  return value === null ? 'absent' : value === '' ? `''  ${emptyMeaning}` : value;
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
    'Provenance (AC-25: live and backfilled rows are not compared like-for-like)',
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
  const distinct = e.distinct === null ? 'not counted (execution_since is absent, AC-24b)' : formatInt(e.distinct);
  const sinceKey =
    e.unknown_live_rows_since_execution_since === null ? '' : ` · ${formatInt(e.unknown_live_rows_since_execution_since)} live since execution_since`;
  return [
    "Executions ('unknown' is never an execution)",
    `  distinct executions: ${distinct}`,
    `  rows with an execution id: ${formatInt(e.identified_rows)} · 'unknown' rows: ${formatInt(e.unknown_rows)} (${formatInt(e.unknown_backfill_rows)} backfill${sinceKey})`,
  ];
}

export function formatReport(r: SubagentContextReport, where: string): string {
  const blocks: string[][] = [
    [
      `subagent-context report: ${where}`,
      `  window  ${describeWindow(r.window)}`,
      `  scope   ${describeScope(r.task_ids)}`,
      `  state   ${r.state}: ${STATE_MEANING[r.state]}`,
      `  keys    capture_since ${keyValue(r.keys.capture_since, '')} · backfill_through ${keyValue(r.keys.backfill_through, '(sentinel: nothing to backfill, AC-24f)')} · execution_since ${keyValue(r.keys.execution_since, '')}`,
    ],
    ['Read these first (AC-25)', ...(r.caveats.length ? r.caveats.map((c) => `  • ${c}`) : ['  • none apply to this store and window'])],
    fanOutSection(r),
    cardsSection(r),
    provenanceSection(r),
    tokensSection(r),
    executionsSection(r),
  ];
  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}
