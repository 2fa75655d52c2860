// What a report found, in plain words: the lines every view leads with (the terminal report,
// the demo, the HTML page), before any chart or caveat. Only restates the report's figures
// (and one ratio of them); the numbered notes after the charts say how far each may be read.
import { formatInt, formatRatio, plural } from '../human-numbers.js';
import { turnsIn, zeroFilledMean } from '../report/derived-figures.js';
import type { FanOutBucket, SubagentContextReport } from '../report/types.js';

const widest = (buckets: readonly FanOutBucket[]) => buckets.reduce((n, b) => (b.subagents > n ? b.subagents : n), 0);

function cardsFinding(r: SubagentContextReport): string | null {
  const c = r.cards;
  if (c.sessions_per_card === null || c.contexts_per_card === null) return null;
  return `A card's work ran in ${formatRatio(c.contexts_per_card)} contexts, not the ${formatRatio(c.sessions_per_card)} ${c.sessions_per_card === 1 ? 'session' : 'sessions'} per card that task_sessions shows: ${plural(c.subagent_contexts, 'subagent')} across ${plural(c.tasks, 'card')} (${formatInt(c.tasks_with_subagents)} of them fanned out).`;
}

function fanOutFinding(r: SubagentContextReport): string | null {
  const f = r.fan_out;
  const known = turnsIn(f.known);
  const unknown = turnsIn(f.unknown);
  if (known + unknown === 0) return null;
  const all = [...f.known, ...f.unknown];
  const wide = turnsIn(all, 2);
  const split =
    f.known_from === null
      ? 'no count is known to be complete on this store (each is a lower bound)'
      : `${plural(known, 'turn')} with a complete count, ${plural(unknown, 'earlier turn')} counted from history (lower bounds)`;
  return `${plural(known + unknown, 'turn')} spawned subagents; ${formatInt(wide)} of them spawned two or more, up to ${formatInt(widest(all))} at once. ${split[0].toUpperCase()}${split.slice(1)}.`;
}

function tokensFinding(r: SubagentContextReport): string | null {
  const t = r.tokens;
  if (t.settled === 0) return null;
  if (t.measured === 0) return `None of the ${plural(t.settled, 'finished subagent')} reported its tokens: their usage is unmeasured, not 0.`;
  const head = `${formatInt(t.total_tokens)} tokens over ${plural(t.measured, 'subagent')} that reported usage, ${formatInt(Math.round(t.mean_tokens ?? 0))} each on average`;
  if (t.unmeasured === 0) return `${head}.`;
  const zeroFilled = zeroFilledMean(t)!;
  return `${head}; ${formatInt(t.unmeasured)} more reported nothing and count as unmeasured, not 0 (read as 0, the mean would look ${(t.mean_tokens! / zeroFilled).toFixed(1)}× lower).`;
}

/** Up to three sentences, most important first; one sentence when the window holds nothing. */
export function findingLines(r: SubagentContextReport): string[] {
  const lines = [cardsFinding(r), fanOutFinding(r), tokensFinding(r)].filter((l): l is string => l !== null);
  return lines.length ? lines : ['No subagent was recorded in this window.'];
}
