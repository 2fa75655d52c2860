// Every figure the demo prints from store.report(), re-derived from the tables by the demo
// tests' own SQL: SQL reads the rows, JavaScript counts them (never report() or its statements).
import { parseInstant } from '../../src/instant.js';
import type { DemoTarget } from './demo-run.js';

export type KeyName = 'capture_since' | 'backfill_through' | 'execution_since';

/** Every figure the demo prints from store.report(), re-derived from the tables: SQL reads the rows, JavaScript counts them. */
export interface ExpectedFigures {
  keys: Record<KeyName, string | null>;
  provenance: { rows: number; live: number; backfill: number; liveBeforeCaptureSince: number };
  fanOut: { known: Map<number, number>; unknown: Map<number, number>; unknownTurns: number; rowsWithoutTurn: number };
  cards: { tasks: number; sessions: number; contexts: number; tasksWithSubagents: number };
  tokens: {
    settled: number;
    measured: number;
    unmeasured: number;
    outstanding: number;
    total: number;
    /** [from, to, subagents] on 1-2-5 buckets, contiguous from the smallest to the largest non-empty one. */
    distribution: number[][];
    bySource: Record<string, (number | null)[]>;
    bySubagentType: Record<string, (number | null)[]>;
    byModel: Record<string, (number | null)[]>;
  };
  executions: { distinct: number; identified: number; unknown: number; unknownBackfill: number; unknownLiveSinceExecutionSince: number };
}

export async function expectedFigures(target: DemoTarget): Promise<ExpectedFigures> {
  const meta = await target.query<{ key: string; value: string }>(`SELECT key, value FROM kandev_meta WHERE key LIKE 'subagent_context_%'`);
  const key = (name: KeyName) => meta.find((m) => m.key === `subagent_context_${name}`)?.value ?? null;
  const keys = { capture_since: key('capture_since'), backfill_through: key('backfill_through'), execution_since: key('execution_since') };
  const instant = (name: KeyName) => {
    const ns = keys[name] === null ? null : parseInstant(keys[name]!);
    if (ns === null) throw new Error(`the demo store's ${name} is not an instant: ${keys[name]}`);
    return ns;
  };
  const [captureSince, backfillThrough, executionSince] = [instant('capture_since'), instant('backfill_through'), instant('execution_since')];

  const rows = (
    await target.query<Record<string, unknown>>(
      `SELECT s.task_session_id, s.turn_id, s.source, s.agent_execution_id, s.subagent_type, s.model, s.total_tokens,
              CASE WHEN s.settled_at IS NULL THEN 0 ELSE 1 END AS settled, ${target.timeText('s.observed_at')} AS at, t.task_id AS session_task
         FROM task_session_subagents s JOIN task_sessions t ON t.id = s.task_session_id`,
    )
  ).map((r) => ({
    session: String(r.task_session_id),
    turn: r.turn_id === null ? null : String(r.turn_id),
    source: String(r.source),
    execution: String(r.agent_execution_id),
    subagentType: r.subagent_type === null ? null : String(r.subagent_type),
    model: r.model === null ? null : String(r.model),
    tokens: r.total_tokens === null ? null : Number(r.total_tokens),
    settled: Number(r.settled) === 1,
    at: parseInstant(String(r.at))!,
    task: String(r.session_task),
  }));
  // A session is active with a message or a subagent row (no window: at any time).
  const active = await target.query<{ id: string; task_id: string }>(
    `SELECT t.id, t.task_id FROM task_sessions t
      WHERE EXISTS (SELECT 1 FROM task_session_messages m WHERE m.task_session_id = t.id)
         OR EXISTS (SELECT 1 FROM task_session_subagents s WHERE s.task_session_id = t.id)`,
  );

  const live = rows.filter((r) => r.source === 'live');
  // A turn is (session, turn_id); its era is decided by its first row against backfill_through (AC-25).
  const turns = new Map<string, { size: number; first: bigint }>();
  for (const r of rows.filter((x) => x.turn !== null)) {
    const id = `${r.session}\u0000${r.turn}`;
    const t = turns.get(id) ?? { size: 0, first: r.at };
    turns.set(id, { size: t.size + 1, first: r.at < t.first ? r.at : t.first });
  }
  const known = new Map<number, number>();
  const unknown = new Map<number, number>();
  for (const t of turns.values()) {
    const era = t.first >= backfillThrough ? known : unknown;
    era.set(t.size, (era.get(t.size) ?? 0) + 1);
  }

  const settled = rows.filter((r) => r.settled);
  const measured = settled.filter((r) => r.tokens !== null).map((r) => r.tokens!);
  if (measured.some((n) => n < 1)) throw new Error('a measured total_tokens below 1: the 1-2-5 buckets below do not cover it');
  const bucketOf = (n: number) => {
    const decade = 10 ** (String(n).length - 1);
    const lead = Math.floor(n / decade);
    return lead < 2 ? [decade, 2 * decade] : lead < 5 ? [2 * decade, 5 * decade] : [5 * decade, 10 * decade];
  };
  const edges = [...new Set(measured.map((n) => bucketOf(n)[0]))].sort((a, b) => a - b);
  const distribution: number[][] = [];
  for (let from = edges[0]; edges.length && from <= edges.at(-1)!; from = bucketOf(from)[1]) {
    distribution.push([from, bucketOf(from)[1], measured.filter((n) => bucketOf(n)[0] === from).length]);
  }
  const groups = (by: (r: (typeof rows)[number]) => string | null, notReported: string) => {
    const out: Record<string, (number | null)[]> = {};
    for (const value of new Set(settled.map(by))) {
      const group = settled.filter((r) => by(r) === value);
      const tokens = group.flatMap((r) => (r.tokens === null ? [] : [r.tokens]));
      const total = tokens.reduce((a, b) => a + b, 0);
      out[value ?? notReported] = [total, tokens.length, group.length - tokens.length, tokens.length ? Math.round(total / tokens.length) : null];
    }
    return out;
  };
  const unknownRows = rows.filter((r) => r.execution === 'unknown');

  return {
    keys,
    provenance: {
      rows: rows.length,
      live: live.length,
      backfill: rows.filter((r) => r.source === 'backfill').length,
      liveBeforeCaptureSince: live.filter((r) => r.at < captureSince).length,
    },
    fanOut: { known, unknown, unknownTurns: [...unknown.values()].reduce((a, b) => a + b, 0), rowsWithoutTurn: rows.filter((r) => r.turn === null).length },
    cards: {
      tasks: new Set(active.map((s) => s.task_id)).size,
      sessions: active.length,
      contexts: rows.length,
      tasksWithSubagents: new Set(rows.map((r) => r.task)).size,
    },
    tokens: {
      settled: settled.length,
      measured: measured.length,
      unmeasured: settled.length - measured.length,
      outstanding: rows.length - settled.length,
      total: measured.reduce((a, b) => a + b, 0),
      distribution,
      bySource: groups((r) => r.source, '(none)'),
      bySubagentType: groups((r) => r.subagentType, '(not reported)'),
      byModel: groups((r) => r.model, '(not reported)'),
    },
    executions: {
      distinct: new Set(rows.filter((r) => r.execution !== 'unknown').map((r) => r.execution)).size,
      identified: rows.length - unknownRows.length,
      unknown: unknownRows.length,
      unknownBackfill: unknownRows.filter((r) => r.source === 'backfill').length,
      unknownLiveSinceExecutionSince: unknownRows.filter((r) => r.source === 'live' && r.at >= executionSince).length,
    },
  };
}
