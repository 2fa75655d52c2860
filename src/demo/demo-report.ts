// Renders the demo's report as plain terminal text. Every figure comes from the database
// (DemoFigures, read through the demo_* queries) or from the store's own API (migration
// report, counters, health report, listBySession); nothing here computes a figure the
// database did not hold, and test/demo-report.test.ts re-derives each one independently.
import type { HealthReport, MigrationReport, SubagentContextRow, WriterCounters } from '../index.js';
import type { DemoFigures } from './demo-database.js';
import type { DemoHistory } from './demo-history.js';
import type { LiveStreamResult } from './live-stream.js';

export interface DemoReportInput {
  where: string;
  upgradeAt: string;
  history: DemoHistory['summary'] & { messages: number };
  migration: MigrationReport;
  live: LiveStreamResult;
  counters: WriterCounters;
  health: HealthReport | { error: string };
  figures: DemoFigures;
  reusedRows: SubagentContextRow[];
  examples: string[];
  examplesNote?: string;
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const fixed = (n: number, digits: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;
const BAR_WIDTH = 40;

function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function section(title: string, lines: string[]): string[] {
  return ['', title, ...lines.map((l) => (l === '' ? '' : `   ${l}`))];
}

function migrationLines(report: MigrationReport): string[] {
  const width = Math.max(0, ...report.steps.map((s) => s.name.length));
  return [
    `ok: ${report.ok}`,
    ...report.steps.map((s) => `${s.status.padEnd(8)} ${s.name.padEnd(width)} ${fixed(s.ms, 1).padStart(8)} ms${s.error ? `  — ${s.error}` : ''}`),
  ];
}

function keyLines(keys: DemoFigures['keys']): string[] {
  if (keys.length === 0) return ['(none: the feature has not activated — AC-24c)'];
  const width = Math.max(...keys.map((k) => k.key.length));
  return keys.map((k) => `${k.key.padEnd(width)}  ${k.value === '' ? "'' (nothing matched the backfill, AC-24f)" : k.value}`);
}

function counterLine(c: WriterCounters): string {
  return `counters: attempted ${c.attempted} · persisted ${c.persisted} · skipped_no_identity ${c.skipped_no_identity} · failed ${c.failed} · anomalous_value ${c.anomalous_value} · unknown_execution ${c.unknown_execution}`;
}

function reusedLines(input: DemoReportInput): string[] {
  const { sessionId, toolCallId } = input.live.reused;
  return [
    `${toolCallId} in ${sessionId} now has ${plural(input.reusedRows.length, 'row')}, one per execution:`,
    ...input.reusedRows.map(
      (r) => `  execution ${r.agent_execution_id.slice(0, 8)}…  ${r.turn_id ?? '(no turn)'}  agent_status ${r.agent_status ?? '—'}  total_tokens ${r.total_tokens === null ? 'NULL' : fmt(Number(r.total_tokens))}`,
    ),
  ];
}

function healthLines(health: DemoReportInput['health']): string[] {
  if ('error' in health) return [`unavailable: ${health.error}`];
  const n = (v: number | null) => (v === null ? 'not run' : String(v));
  return [
    `state ${health.state} · verdict ${health.verdict}`,
    `shortfall ${n(health.shortfall)} · excess ${n(health.excess)} · collisions ${n(health.collisions)} · last observed ${health.last_observed_at ?? 'NULL'}`,
  ];
}

function fanOutLines(rows: DemoFigures['fanOut']): string[] {
  const turns = rows.reduce((n, r) => n + r.turns, 0);
  const contexts = rows.reduce((n, r) => n + r.turns * r.fanOut, 0);
  const max = Math.max(1, ...rows.map((r) => r.turns));
  return [
    `Fan-out per turn (${plural(turns, 'turn')} with subagents, ${plural(contexts, 'subagent row')}):`,
    ...rows.map((r) => {
      const bar = '█'.repeat(Math.max(1, Math.round((r.turns / max) * BAR_WIDTH)));
      return `  ${String(r.fanOut).padStart(2)} ${(r.fanOut === 1 ? 'subagent' : 'subagents').padEnd(9)} │${bar} ${plural(r.turns, 'turn')} (${fmt(r.backfilledTurns)} backfilled)`;
    }),
    `the backfilled turns are the history's fan-out, recovered from message metadata; the rest came from live frames`,
  ];
}

function cardLines(cards: DemoFigures['cards']): string[] {
  const sessions = cards.map((c) => c.sessions).sort((a, b) => a - b);
  const contexts = cards.map((c) => c.subagentContexts).sort((a, b) => a - b);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return [
    `Sessions per card vs subagent contexts per card (${plural(cards.length, 'card')}):`,
    `  sessions per card           mean ${fixed(mean(sessions), 2)} · min ${sessions[0] ?? 0} · max ${sessions.at(-1) ?? 0}`,
    `  subagent contexts per card  mean ${fixed(mean(contexts), 2)} · median ${median(contexts)} · max ${contexts.at(-1) ?? 0} · ${contexts.filter((n) => n > 0).length} of ${cards.length} cards fanned out`,
  ];
}

function tokenLines(settled: DemoFigures['settled']): string[] {
  const measured = settled.flatMap((r) => (r.totalTokens === null ? [] : [r.totalTokens])).sort((a, b) => a - b);
  const unmeasured = settled.filter((r) => r.totalTokens === null);
  const byStatus = new Map<string, number>();
  for (const r of unmeasured) byStatus.set(r.agentStatus ?? '(no status)', (byStatus.get(r.agentStatus ?? '(no status)') ?? 0) + 1);
  const sum = measured.reduce((a, b) => a + b, 0);
  const mean = measured.length ? sum / measured.length : 0;
  const zeroFilled = settled.length ? sum / settled.length : 0;
  const breakdown = [...byStatus].sort((a, b) => b[1] - a[1]).map(([status, n]) => `${fmt(n)} ${status}`).join(', ');
  return [
    `Tokens per completed subagent (${plural(settled.length, 'settled row')}):`,
    `  measured  ${plural(measured.length, 'row')} · mean ${fmt(mean)} · median ${fmt(median(measured))} · max ${fmt(measured.at(-1) ?? 0)} tokens`,
    `  excluded  ${plural(unmeasured.length, 'row')} reported no usage (total_tokens NULL, never 0)${breakdown ? `: ${breakdown}` : ''}`,
    ...(measured.length && unmeasured.length
      ? [`  had those been stored as 0, the mean would read ${fmt(zeroFilled)} — ${fixed(mean / zeroFilled, 1)}× too low`]
      : []),
  ];
}

function provenanceLines(rows: DemoFigures['provenance']): string[] {
  return [
    'Provenance (AC-25: disclose the split before comparing):',
    ...rows.map((r) => `  ${r.source.padEnd(8)} ${fmt(r.rows).padStart(5)} rows · ${fmt(r.realExecution)} with a real execution id · ${fmt(r.settled)} settled · ${fmt(r.measured)} measured`),
  ];
}

export function renderDemoReport(input: DemoReportInput): string {
  const h = input.history;
  const s = h.statuses;
  const lines = [
    `subagent-context demo · ${input.where}`,
    '',
    `A seeded host history reproducing the spec's sampled store: ${plural(h.cards, 'card')}, one session each, ${fmt(h.messages)} messages;`,
    `${fmt(h.subagentMessages)} subagent launches in ${h.sessionsWithSubagents} sessions and ${h.subagentTurns} turns — ${s.async_launched} async_launched, ${s.completed} completed, ${s.started} started, ${s.absent} without a status;`,
    `${h.malformedMetadata} messages whose metadata is malformed ('', 'null', '{broken').`,
    ...section(`1. runMigrations() — the upgrade boots at ${input.upgradeAt} (simulated clock)`, migrationLines(input.migration)),
    ...section('2. Activation keys (kandev_meta)', keyLines(input.figures.keys)),
    ...section(
      `3. Live stream: ${plural(input.live.frames, 'frame')} as an orchestrator delivers them (${input.live.burstFrames} in one recordFrames burst)`,
      [...input.live.notes.map((n) => `- ${n}`), counterLine(input.counters), ...reusedLines(input)],
    ),
    ...section('4. checkHealth()', healthLines(input.health)),
    ...section('5. What the store now answers', [
      ...fanOutLines(input.figures.fanOut),
      '',
      ...cardLines(input.figures.cards),
      '',
      ...tokenLines(input.figures.settled),
      '',
      ...provenanceLines(input.figures.provenance),
    ]),
    ...section('6. Query it yourself — the database stays where it is:', [...input.examples, ...(input.examplesNote ? [input.examplesNote] : [])]),
    '',
  ];
  return lines.join('\n');
}
