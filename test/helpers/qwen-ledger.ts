// The usage ledger's rows that Qwen Code's recorded run must give (issue 33), computed from
// the recording itself (recordings/acp/qwen-fanout.jsonl): each subagent's executionSummary on
// its terminal frame, in the ledger's split (src/acp/shapes/qwen.ts summaryUsage), so a
// re-recording with other figures changes the expectation, not the test. And the ledger as a
// store holds it, in one form on both dialects.
import { expect } from 'vitest';
import { loadAcpFixture } from './acp-fixtures.js';

export interface QwenSummary {
  rounds: number;
  inputTokens: number;
  outputTokens: number;
  thoughtTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

/** Each subagent's executionSummary in the recording, by its launching tool call. */
export function qwenSummaries(): Map<string, QwenSummary> {
  const found = new Map<string, QwenSummary>();
  for (const { update } of loadAcpFixture('qwen-fanout')) {
    const summary = (update.rawOutput as { executionSummary?: QwenSummary } | undefined)?.executionSummary;
    if (summary !== undefined) {
      expect(found.has(update.toolCallId as string)).toBe(false); // one terminal frame per subagent
      found.set(update.toolCallId as string, summary);
    }
  }
  return found;
}

/** A ledger row without its identity columns and updated_at. */
export interface LedgerFigures {
  tool_call_id: string;
  model: string;
  source: string;
  requests: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

/** The ledger rows the recording's summaries make, by tool call id. */
export function expectedQwenLedger(): LedgerFigures[] {
  return [...qwenSummaries()]
    .map(([id, s]) => ({
      tool_call_id: id,
      model: 'unknown', // Qwen names no model on the wire
      source: 'live',
      requests: s.rounds,
      input_tokens: s.inputTokens - s.cachedTokens, // Qwen's prompt count includes its cache reads; the ledger's does not
      output_tokens: s.outputTokens,
      cache_read_input_tokens: s.cachedTokens,
      cache_creation_input_tokens: null, // not reported apart: NULL, never 0
    }))
    .sort((a, b) => (a.tool_call_id < b.tool_call_id ? -1 : 1));
}

export type LedgerRow = LedgerFigures & { task_session_id: string; agent_execution_id: string; updated_at: string };

const LEDGER_SQL = `SELECT task_session_id, agent_execution_id, tool_call_id, model, source, requests, input_tokens, output_tokens,
  cache_read_input_tokens, cache_creation_input_tokens, CAST(updated_at AS TEXT) AS updated_at
  FROM task_session_subagent_usage ORDER BY tool_call_id, task_session_id, agent_execution_id, model`;

const figure = (v: unknown): number | null => (v === null ? null : Number(v)); // PostgreSQL's BIGINT arrives as text

/** Every ledger row of the store, figures as numbers. */
export async function readLedger(db: { query<T>(sql: string): Promise<T[]> }): Promise<LedgerRow[]> {
  return (await db.query<Record<string, unknown>>(LEDGER_SQL)).map((r) => ({
    task_session_id: String(r.task_session_id),
    agent_execution_id: String(r.agent_execution_id),
    tool_call_id: String(r.tool_call_id),
    model: String(r.model),
    source: String(r.source),
    requests: figure(r.requests),
    input_tokens: figure(r.input_tokens),
    output_tokens: figure(r.output_tokens),
    cache_read_input_tokens: figure(r.cache_read_input_tokens),
    cache_creation_input_tokens: figure(r.cache_creation_input_tokens),
    updated_at: String(r.updated_at),
  }));
}

/** The figures only (identity and updated_at left out). */
export function figuresOf(rows: readonly LedgerRow[]): LedgerFigures[] {
  return rows.map(({ task_session_id: _s, agent_execution_id: _e, updated_at: _u, ...figures }) => figures);
}
