// The live-writer workload: frames as an orchestrator delivers them (three-way fan-outs,
// four frames per subagent: pending, in_progress, in_progress with the model, completed
// with usage), plus the SAME rows as raw upsert parameters for the ceiling. The frames are
// well-formed (no empty strings, zeros or negatives), so the package's normalization maps
// each one to exactly the parameters built here: the two paths write identical rows.
import { randomUUID } from 'node:crypto';
import { readTextColumns } from '../../generated/columns.js';
import type { IUpsertSubagentContextParams as SqliteUpsertParams } from '../../generated/sqlite/index.js';
import { upsertSubagentContext as postgresUpsert } from '../../generated/postgres/index.js';
import { seededRandom } from '../../src/demo/seeded-random.js';
import { formatMicros, formatSqliteColumn } from '../../src/instant.js';
import type { SubagentFrame } from '../../src/index.js';

export interface LiveWorkload {
  sessions: { id: string; taskId: string }[];
  frames: SubagentFrame[];
  /** Index into `sessions` per frame: an N-connection run gives each worker whole sessions, so a subagent's frames stay in order. */
  sessionOf: number[];
}

const FRAMES_PER_SUBAGENT = 4;
const FAN_OUT = 3;

export function liveWorkload(frameCount: number, seed = 42): LiveWorkload {
  const rng = seededRandom(seed);
  const sessions = Array.from({ length: 64 }, (_, i) => ({ id: `bench-ses-${i}`, taskId: `bench-card-${i}` }));
  const frames: SubagentFrame[] = [];
  const sessionOf: number[] = [];
  const execution = randomUUID();
  for (let turn = 0; frames.length < frameCount; turn++) {
    const s = turn % sessions.length;
    const { id: sessionId, taskId } = sessions[s];
    const turnId = `${sessionId}-turn-${turn}`;
    const subagents = Array.from({ length: FAN_OUT }, (_, k) => ({
      toolCallId: `toolu_01${rng.base62(22)}`,
      subagentType: ['security-reviewer', 'code-reviewer', 'performance-reviewer'][k],
      description: `Review turn ${turn} as reviewer ${k}`,
    }));
    for (let step = 0; step < FRAMES_PER_SUBAGENT; step++) {
      for (const sub of subagents) {
        const payload =
          step === 0
            ? { description: sub.description, subagent_type: sub.subagentType }
            : step === 1
              ? { description: sub.description }
              : step === 2
                ? { model: 'claude-opus-5[1m]' }
                : {
                    status: 'completed',
                    agent_id: `agent_${rng.hex(12)}`,
                    model: 'claude-opus-5[1m]',
                    total_tokens: rng.int(5_000, 250_000),
                    tool_use_count: rng.int(1, 40),
                    duration_ms: rng.int(5_000, 600_000),
                  };
        frames.push({
          sessionId,
          taskId,
          turnId,
          executionId: execution,
          toolCallId: sub.toolCallId,
          toolStatus: step === 3 ? 'completed' : step === 0 ? 'pending' : 'in_progress',
          payload,
        });
        sessionOf.push(s);
      }
    }
  }
  return { sessions, frames: frames.slice(0, frameCount), sessionOf: sessionOf.slice(0, frameCount) };
}

/** A well-formed frame's text field as the store binds it: the text, or NULL when absent. */
const reportedText = (object: unknown, field: string): string | null => ((object as Record<string, unknown>)[field] as string | undefined) ?? null;

/** The upsert's parameters for one well-formed frame, exactly as the store would bind them. */
function upsertParams(frame: SubagentFrame, observedAtNs: bigint, formatTime: (ns: bigint) => string) {
  const p = frame.payload;
  const int = (v: number | bigint | null | undefined) => (v === undefined || v === null ? null : Number(v));
  return {
    id: randomUUID(),
    sessionId: frame.sessionId!,
    taskId: frame.taskId!,
    turnId: frame.turnId ?? null,
    executionId: frame.executionId!,
    toolCallId: frame.toolCallId!,
    ...readTextColumns(frame, p, reportedText), // the text columns, from the DDL's tags
    toolStatus: frame.toolStatus ?? null,
    isAsync: p.is_async ? 1 : 0,
    totalTokens: int(p.total_tokens),
    toolUseCount: int(p.tool_use_count),
    durationMs: int(p.duration_ms),
    observedAt: formatTime(observedAtNs),
  };
}

const START_NS = BigInt(Date.UTC(2026, 7, 12, 14, 0, 0)) * 1_000_000n;

/** Raw SQLite bind objects for the generated statement (`upsertSubagentContext.sql`). */
export function sqliteRawRows(w: LiveWorkload): Required<SqliteUpsertParams>[] {
  return w.frames.map((f, i) => upsertParams(f, START_NS + BigInt(i) * 1000n, formatSqliteColumn));
}

/** Raw PostgreSQL statement text and bind values, from the generated statement's precompiled text. */
export function postgresRawRows(w: LiveWorkload): { text: string; values: unknown[] }[] {
  return w.frames.map((f, i) => ({ text: postgresUpsert.text, values: postgresUpsert.values(upsertParams(f, START_NS + BigInt(i) * 1000n, formatMicros)) }));
}
