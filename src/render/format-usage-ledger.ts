// The report's usage-ledger section (text), printed after the report when the ledger has
// figures: tokens per subagent type and model summed over every run — the figure the spec's
// total_tokens (one reported response) cannot give — and the subagents' share of the tokens
// of the sessions the ledger covers (their parents' own usage is in the main transcripts).
import type { UsageLedgerRow } from '../report/usage-ledger.js';

const int = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatUsageLedger(rows: readonly UsageLedgerRow[]): string {
  const subagents = rows.filter((r) => r.side === 'subagent');
  if (!subagents.length) return '';
  const parents = rows.filter((r) => r.side === 'parent');
  const subagentTokens = subagents.reduce((a, r) => a + r.tokens, 0);
  const parentTokens = parents.reduce((a, r) => a + r.tokens, 0);
  const runs = subagents.reduce((a, r) => a + r.runs, 0);
  const lines = ['', 'Usage ledger: every response of every subagent run, per model (imported transcripts; NULL figures are not 0)'];
  const share = parentTokens + subagentTokens > 0 ? (100 * subagentTokens) / (parentTokens + subagentTokens) : 0;
  lines.push(
    `  subagents used ${int(subagentTokens)} tokens over ${int(runs)} run${runs === 1 ? '' : 's'}: ${share.toFixed(1)}% of their sessions' ${int(subagentTokens + parentTokens)} (the parents' own: ${int(parentTokens)})`,
  );
  const width = Math.max(...subagents.map((r) => `${r.subagentType ?? '(type not reported)'} · ${r.model}`.length));
  for (const r of subagents) {
    const label = `${r.subagentType ?? '(type not reported)'} · ${r.model}`.padEnd(width);
    const requests = r.requests === null ? 'requests not reported' : `${int(r.requests)} requests`;
    const missing = r.unreported ? ` · ${r.unreported} row${r.unreported === 1 ? '' : 's'} missing a figure (a lower bound)` : '';
    lines.push(`    ${label}  ${int(r.tokens).padStart(12)} tokens · ${int(r.runs)} run${r.runs === 1 ? '' : 's'} · ${requests}${missing}`);
  }
  return `${lines.join('\n')}\n`;
}
