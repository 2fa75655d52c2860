// Renders the demo's report as plain terminal text, in two lengths: by default the finding
// in plain words, its two charts and one paragraph on what ran (about 30 lines); with
// --verbose the full walk-through, step by step. Every figure comes from the store's own
// API: the migration report, the counters, the health report, listBySession(), and
// store.report(), printed by the `report` command's own formatter; the story lines only
// restate the report's figures (and one ratio of them) as the story the feature exists for.
// test/demo-report.test.ts re-derives every printed figure from the tables independently.
import { chart, formatReport } from '../render/format-report.js';
import { subagentsIn, turnsIn, zeroFilledMean } from '../report/derived-figures.js';
import type { HealthReport, MigrationReport, SubagentContextReport, SubagentContextRow, WriterCounters } from '../index.js';
import { fanOutBars } from '../render/chart-data.js';
import { visibleLines } from '../render/display-text.js';
import { findingLines } from '../render/finding.js';
import { plainWords } from '../render/notes.js';
import { formatFixed, formatInt, formatRatio, plural } from '../human-numbers.js';
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
  report: SubagentContextReport;
  reusedRows: SubagentContextRow[];
  /** The CLI's database option for the demo's database, and a command opening it in its client. */
  cliOption: string;
  clientCommand: string;
  /** The database option as the user gave it ('' when none): `demo --verbose` runs on the same database again. */
  rerunOption: string;
  examplesNote?: string;
}

function section(title: string, lines: string[]): string[] {
  return ['', title, ...lines.map((l) => (l === '' ? '' : `   ${l}`))];
}

function migrationLines(report: MigrationReport): string[] {
  const width = Math.max(0, ...report.steps.map((s) => s.name.length));
  return [
    `ok: ${report.ok}`,
    ...report.steps.map(
      (s) =>
        `${s.status.padEnd(8)} ${s.name.padEnd(width)} ${formatFixed(s.ms, 1).padStart(8)} ms${(s.error ?? s.detail) ? `  — ${plainWords(s.error ?? s.detail ?? '')}` : ''}`,
    ),
  ];
}

/** The keys as the report read them (verbatim, null when absent), in key-name order. */
function keyLines(keys: SubagentContextReport['keys']): string[] {
  const present = (['backfill_through', 'capture_since', 'execution_since'] as const).flatMap((name) => {
    const value = keys[name];
    return value === null ? [] : [{ key: `subagent_context_${name}`, value }];
  });
  if (present.length === 0) return ['(none: the feature has not activated)'];
  const width = Math.max(...present.map((k) => k.key.length));
  return present.map((k) => `${k.key.padEnd(width)}  ${k.value === '' ? "'' (nothing matched the backfill: no earlier history to recover)" : k.value}`);
}

function counterLine(c: WriterCounters): string {
  return `counters: attempted ${c.attempted} · persisted ${c.persisted} · skipped_no_identity ${c.skipped_no_identity} · failed ${c.failed} · anomalous_value ${c.anomalous_value} · unknown_execution ${c.unknown_execution}`;
}

function reusedLines(input: DemoReportInput): string[] {
  const { sessionId, toolCallId } = input.live.reused;
  return [
    `${toolCallId} in ${sessionId} now has ${plural(input.reusedRows.length, 'row')}, one per execution:`,
    ...input.reusedRows.map(
      (r) =>
        `  execution ${r.agent_execution_id.slice(0, 8)}…  ${r.turn_id ?? '(no turn)'}  agent_status ${r.agent_status ?? '—'}  total_tokens ${r.total_tokens === null ? 'NULL' : formatInt(Number(r.total_tokens))}`,
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

/** The report's figures as the story the feature exists for (spec § Why). */
function storyLines(r: SubagentContextReport): string[] {
  const { cards: c, fan_out: f, tokens: t, provenance: p } = r;
  const lines: string[] = [];
  if (c.sessions_per_card !== null && c.contexts_per_card !== null) {
    lines.push(
      `- task_sessions alone says ${formatRatio(c.sessions_per_card)} session per card; with the ${plural(c.subagent_contexts, 'subagent context')} the store records, a card's work ran in ${formatRatio(c.contexts_per_card)} contexts (${formatInt(c.tasks_with_subagents)} of ${plural(c.tasks, 'card')} fanned out).`,
    );
  }
  if (f.known_from !== null) {
    lines.push(
      `- known fan-out: ${plural(turnsIn(f.known), 'turn')} (${plural(subagentsIn(f.known), 'subagent')}) whose first subagent came at or after ${f.known_from_key} (${f.known_from}).`,
    );
  }
  const unknownTurns = turnsIn(f.unknown);
  if (unknownTurns > 0) {
    // The history's most frequent fan-out above one subagent (the spec's sample: 3, in 42 turns).
    const wide = f.unknown.filter((b) => b.subagents > 1).sort((a, b) => b.turns - a.turns || a.subagents - b.subagents)[0];
    lines.push(
      `- unknown fan-out: ${plural(unknownTurns, 'turn')} (${plural(subagentsIn(f.unknown), 'subagent')}) began ${f.known_from === null ? 'on a store without a fan-out boundary' : 'before it'}, lower bounds recovered from message history${wide ? `; beyond one subagent, most often ${formatInt(wide.subagents)} per turn (${plural(wide.turns, 'turn')})` : ''}.`,
    );
  }
  const zeroFilled = zeroFilledMean(t);
  if (t.measured > 0 && t.unmeasured > 0 && t.mean_tokens !== null && zeroFilled !== null) {
    lines.push(
      `- read as 0, the ${plural(t.unmeasured, 'unmeasured subagent')} would pull the mean from ${formatInt(t.mean_tokens)} to ${formatInt(zeroFilled)} tokens per settled subagent: ${formatFixed(t.mean_tokens / zeroFilled, 1)}× too low.`,
    );
  }
  lines.push(
    `- ${plural(p.live, 'live row')} and ${plural(p.backfill, 'backfilled row')}: the report keeps the two provenances apart (tokens by source), never comparing them like-for-like.`,
  );
  return lines;
}

/** Commands that read the demo's database again, with the CLI or the database's own client. */
function exampleLines(input: DemoReportInput): string[] {
  const report = `npx subagent-context report ${input.cliOption}`;
  const captureSince = input.report.keys.capture_since;
  return [
    `${report} --html subagent-context-demo.html   # the same report as a page with charts`,
    ...(captureSince ? [`${report} --since ${captureSince}   # only what was observed since capture began`] : []),
    `${report} --json`,
    `npx subagent-context health ${input.cliOption}`,
    `${input.clientCommand}   # the tables themselves: task_session_subagents, kandev_meta`,
    ...(input.examplesNote ? [input.examplesNote] : []),
  ];
}

/** What the default demo ran, in one paragraph: the upgrade, the live stream, the health check. */
function whatRanLines(input: DemoReportInput): string[] {
  const h = input.history;
  const c = input.counters;
  const m = input.migration;
  const health = 'error' in input.health ? `unavailable (${input.health.error})` : `${input.health.verdict}, shortfall ${input.health.shortfall ?? 'not run'}`;
  return [
    `A seeded host history (${plural(h.cards, 'card')}, ${formatInt(h.messages)} messages, ${plural(h.subagentMessages, 'subagent launch', 'subagent launches')}) was upgraded at ${input.upgradeAt}`,
    `(simulated clock): ${plural(m.steps.length, 'migration step')}, ${m.ok ? 'ok' : 'FAILED'}, ${plural(input.report.provenance.backfill, 'row')} backfilled from history. Then, off the wire,`,
    `${formatInt(input.live.updates)} ACP notifications recorded from real Claude Code and OpenCode runs went through createAcpRecorder: ${plural(input.live.subagents, 'subagent')},`,
    `${plural(c.attempted, 'frame')}: ${formatInt(c.persisted)} persisted, ${formatInt(c.skipped_no_identity)} skipped without a task id, ${formatInt(c.failed)} failed. Health check: ${health}.`,
  ];
}

/** The default demo: the finding first, then its charts, then what ran and where to look. */
export function renderDemoSummary(input: DemoReportInput): string {
  const r = input.report;
  const c = r.cards;
  const notes = r.caveats.length;
  const lines = [
    `subagent-context demo · ${input.where}`,
    '',
    'What it found',
    ...findingLines(r).map((l) => `   ${l}`),
    '',
    ...chart(
      [
        { label: 'sessions per card', value: c.sessions_per_card ?? 0 },
        { label: 'contexts per card', value: c.contexts_per_card ?? 0, note: 'sessions + subagent contexts' },
      ],
      formatRatio,
      'no card was active',
      '   ',
    ),
    '',
    '   subagents per turn, turns from the history before the upgrade (lower bounds)',
    ...chart(fanOutBars(r.fan_out.unknown), (n) => plural(n, 'turn'), 'no turn with subagents', '   '),
    '',
    'What ran',
    ...whatRanLines(input).map((l) => `   ${l}`),
    ...(notes ? [`   ${plural(notes, 'note')} on how far these figures may be read: run with --verbose, or \`report\` below.`] : []),
    '',
    'Look at it yourself (the database stays where it is)',
    ...exampleLines(input)
      .slice(0, 2)
      .map((l) => `   ${l}`),
    `   npx subagent-context demo ${input.rerunOption ? `${input.rerunOption} ` : ''}--verbose   # the full walk-through: migration steps, keys, live frames, every figure`,
    '',
  ];
  return visibleLines(lines.join('\n'));
}

/** The full walk-through (--verbose): each step of the demo, then the report as `report` prints it. */
export function renderDemoReport(input: DemoReportInput): string {
  const h = input.history;
  const s = h.statuses;
  const lines = [
    `subagent-context demo · ${input.where}`,
    '',
    `A seeded host history modelled on a real host's store: ${plural(h.cards, 'card')}, one session each, ${formatInt(h.messages)} messages;`,
    `${formatInt(h.subagentMessages)} subagent launches in ${h.sessionsWithSubagents} sessions and ${h.subagentTurns} turns — ${s.async_launched} async_launched, ${s.completed} completed, ${s.started} started, ${s.absent} without a status;`,
    `${h.malformedMetadata} messages whose metadata is malformed ('', 'null', '{broken').`,
    ...section(`1. runMigrations() — the upgrade boots at ${input.upgradeAt} (simulated clock)`, migrationLines(input.migration)),
    ...section('2. Activation keys (kandev_meta)', keyLines(input.report.keys)),
    ...section(`3. Live, off the wire: ${plural(input.live.updates, 'ACP notification')} recorded from real agents, through createAcpRecorder`, [
      ...input.live.notes.map((n) => `- ${n}`),
      counterLine(input.counters),
      ...reusedLines(input),
    ]),
    ...section('4. checkHealth()', healthLines(input.health)),
    ...section('5. store.report() — what the store now answers (`subagent-context report` prints the same)', [
      ...formatReport(input.report, { where: input.where }).trimEnd().split('\n'),
      '',
      'What the figures say:',
      ...storyLines(input.report),
    ]),
    ...section('6. Look at it yourself — the database stays where it is:', exampleLines(input)),
    '',
  ];
  return visibleLines(lines.join('\n'));
}
