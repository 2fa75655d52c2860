// The AC-25 rules that apply to one report, as sentences a person can read next to the
// figures (DESIGN §9). Each sentence appears only when its rule applies to this store and
// window, and cites the criterion it applies, so the list changes with the AC-24c state,
// the keys' values and what the window holds.
import { formatKeyInstant } from '../instant.js';
import { formatInt, plural } from '../human-numbers.js';
import type { ActivationKeyValues, ActivationState } from '../activation-keys.js';
import type { KeyName } from './boundaries.js';
import { turnsIn } from './derived-figures.js';
import type { ReportBounds } from './queries.js';
import type { SubagentContextReport } from './types.js';

export interface CaveatInput {
  state: ActivationState;
  keys: ActivationKeyValues;
  bounds: ReportBounds;
  provenance: SubagentContextReport['provenance'];
  fanOut: SubagentContextReport['fan_out'];
  tokens: Pick<SubagentContextReport['tokens'], 'measured' | 'unmeasured' | 'outstanding'>;
  executions: SubagentContextReport['executions'];
}

const KEY = (name: KeyName) => `subagent_context_${name}`;
const at = (ns: bigint) => formatKeyInstant(ns);

function stateCaveats(state: ActivationState): string[] {
  switch (state) {
    case 'not_activated':
      return [
        'Not activated (AC-24c): neither subagent_context_capture_since nor subagent_context_execution_since is present. Every row is a valid measurement, but no absence of a row is evidence of anything, no coverage boundary exists, and all fan-out is unknown.',
      ];
    case 'execution_only':
      return [
        'The backfill has not succeeded (AC-24c, AC-24a): subagent_context_capture_since is absent, so no coverage boundary exists and all fan-out is unknown fan-out, never zero. The backfill retries on the next boot.',
      ];
    case 'capture_only':
      return [
        'The execution-id upgrade (migration step record_execution_since) has not applied (AC-24b): subagent_context_execution_since is absent, so no agent_execution_id on this store is read as an execution identity and executions are not counted.',
      ];
    case 'activated':
      return [];
  }
}

/** Code points of a key's value a caveat quotes: the human views clip key values at 64 columns too. */
const QUOTED_POINTS = 64;

/**
 * A key's value as a caveat quotes it: its first QUOTED_POINTS code points, then `…`. The
 * report's `keys` keeps it whole; a 100 KB value made every note line, and the page, 100 KB.
 */
function quotedKey(value: string | null): string {
  if (value === null) return 'null';
  const points = Array.from(value.slice(0, 4 * QUOTED_POINTS)); // reads no more than it can show
  return JSON.stringify(points.length > QUOTED_POINTS ? `${points.slice(0, QUOTED_POINTS).join('')}…` : points.join(''));
}

function keyCaveats(input: CaveatInput): string[] {
  const { bounds, keys } = input;
  const out = bounds.unreadable.map(
    (name) =>
      `${KEY(name)} holds ${quotedKey(keys[name])}, which is not an instant, so it bounds nothing in this report (AC-24e)${name === 'backfill_through' && bounds.knownFromNs !== null ? '; fan-out is treated as known only from subagent_context_capture_since' : ''}.`,
  );
  const boundaryKeys: KeyName[] = bounds.knownFromKey ? [bounds.knownFromKey, 'capture_since'] : [];
  for (const name of new Set(boundaryKeys)) {
    if (bounds.secondPrecision.includes(name)) {
      out.push(
        `${KEY(name)} (${keys[name]}) has second precision, as an earlier build of this package wrote it: rows within that second may sit on either side of it, a disclosed limitation (AC-24 point 5).`,
      );
    }
  }
  return out;
}

function fanOutCaveats(input: CaveatInput): string[] {
  const { bounds, keys, fanOut } = input;
  const out: string[] = [];
  const unknownTurns = turnsIn(fanOut.unknown);
  if (bounds.knownFromNs !== null) {
    const from = at(bounds.knownFromNs);
    if (bounds.knownFromKey === 'backfill_through') {
      out.push(
        `Fan-out is known for turns whose first subagent was observed at or after subagent_context_backfill_through (${from}). Turns that began earlier have unknown fan-out: their counts are what survived in message history, lower bounds and never zeros (AC-25).`,
      );
    } else if (keys.backfill_through === '') {
      out.push(
        `subagent_context_backfill_through is '' (AC-24f): the backfill matched no subagent message, so there was no earlier history to recover and none is missing. Fan-out is known from subagent_context_capture_since (${from}).`,
      );
    } else if (keys.backfill_through === null) {
      out.push(
        `subagent_context_backfill_through is absent (a partial key pair the next boot completes, AC-24d): fan-out is treated as known only from subagent_context_capture_since (${from}).`,
      );
    }
  }
  if (unknownTurns > 0) {
    out.push(
      `${plural(unknownTurns, 'turn')} began before any fan-out boundary; their rows are counted, not discarded, because the keys bound completeness, never validity (AC-25).`,
    );
  }
  if (fanOut.rows_without_turn > 0)
    out.push(
      `${plural(fanOut.rows_without_turn, 'row')} in the window ${fanOut.rows_without_turn === 1 ? 'has' : 'have'} no turn_id (no turn was active) and ${fanOut.rows_without_turn === 1 ? 'is' : 'are'} in no fan-out histogram.`,
    );
  if (fanOut.turns_past_until > 0)
    out.push(
      `${plural(fanOut.turns_past_until, 'turn')} continue${fanOut.turns_past_until === 1 ? 's' : ''} at or after until; a turn is counted whole in the window where its first subagent was observed.`,
    );
  if (fanOut.turns_before_since > 0)
    out.push(
      `${plural(fanOut.turns_before_since, 'turn')} with subagents in the window began before since; ${fanOut.turns_before_since === 1 ? 'it is' : 'they are'} counted in the window where ${fanOut.turns_before_since === 1 ? 'it' : 'they'} began, not here.`,
    );
  return out;
}

function completenessCaveats(input: CaveatInput): string[] {
  const { bounds, provenance } = input;
  const out: string[] = [];
  const capture = bounds.captureSinceNs;
  if (capture !== null && (bounds.sinceNs === null || bounds.sinceNs < capture)) {
    out.push(
      `Before subagent_context_capture_since (${at(capture)}) the absence of a row is not evidence that no subagent ran (AC-25): sessions deleted before activation left no trace.`,
    );
  }
  if ((provenance.live_before_capture_since ?? 0) > 0) {
    out.push(
      `${plural(provenance.live_before_capture_since!, 'live row')} ${provenance.live_before_capture_since === 1 ? 'was' : 'were'} observed before subagent_context_capture_since. They are real measurements and are counted: the keys bound completeness, never validity (AC-25).`,
    );
  }
  return out;
}

function provenanceCaveats(input: CaveatInput): string[] {
  const { provenance: p } = input;
  const out: string[] = [];
  if (p.backfill > 0) {
    out.push(
      `${plural(p.backfill, 'row')} of ${formatInt(p.rows)} came from the backfill (source 'backfill'), rebuilt once from what survived in message metadata, often without tokens, statuses or an execution id. Live and backfilled rows are not compared like-for-like: token figures are also given by source (AC-25).`,
    );
  }
  if (p.shadowed_backfill_rows > 0) {
    const one = p.shadowed_backfill_rows === 1;
    out.push(
      `${plural(p.shadowed_backfill_rows, 'backfilled row')} record${one ? 's' : ''} the same subagent as a live row (the same session and tool call: captured live before the backfill ran, AC-22). Each is counted once, by its live row: the backfilled ${one ? 'copy is' : 'copies are'} left out of the fan-out, token, subagent type and card figures, and counted in provenance and executions (AC-25).`,
    );
  }
  const other = p.rows - p.live - p.backfill;
  if (other > 0)
    out.push(
      `${plural(other, 'row')} carr${other === 1 ? 'ies' : 'y'} a source other than 'live' or 'backfill'; ${other === 1 ? 'it is' : 'they are'} counted in the totals only.`,
    );
  return out;
}

function executionCaveats(input: CaveatInput): string[] {
  const { executions: e } = input;
  const out: string[] = [];
  if (e.unknown_rows > 0) {
    out.push(
      `${plural(e.unknown_rows, 'row')} carr${e.unknown_rows === 1 ? 'ies' : 'y'} agent_execution_id 'unknown': the execution is unrecorded. 'unknown' is never counted as an execution, nor read as one shared execution (AC-25, AC-31).`,
    );
  }
  if ((e.unknown_live_rows_since_execution_since ?? 0) > 0) {
    out.push(
      `${plural(e.unknown_live_rows_since_execution_since!, 'live row')} observed since subagent_context_execution_since arrived without an execution id: the host stopped passing execution ids, a regression this figure makes observable (AC-31).`,
    );
  }
  return out;
}

function tokenCaveats(input: CaveatInput): string[] {
  const { tokens: t } = input;
  const out: string[] = [];
  if (t.unmeasured > 0) {
    const one = t.unmeasured === 1;
    out.push(
      `${plural(t.unmeasured, 'settled subagent')} reported no token usage (total_tokens NULL, or a stored 0 or negative, which is no measurement). ${one ? 'It is' : 'They are'} counted as unmeasured, never as 0: totals and means cover the ${plural(t.measured, 'measured subagent')} only (AC-7).`,
    );
  }
  if (t.outstanding > 0)
    out.push(`${plural(t.outstanding, 'subagent')} had not settled when read and ${t.outstanding === 1 ? 'is' : 'are'} outside the token figures.`);
  return out;
}

function scopeCaveats(input: CaveatInput): string[] {
  const ids = input.bounds.taskIds;
  if (ids === null) return [];
  return [
    `Scoped to ${plural(ids.length, 'task')}, through each session's own task: every figure covers ${ids.length === 1 ? 'that task' : 'those tasks'} only.`,
  ];
}

export function reportCaveats(input: CaveatInput): string[] {
  return [
    ...stateCaveats(input.state),
    ...keyCaveats(input),
    ...scopeCaveats(input),
    ...provenanceCaveats(input),
    ...fanOutCaveats(input),
    ...completenessCaveats(input),
    ...executionCaveats(input),
    ...tokenCaveats(input),
  ];
}
