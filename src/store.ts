// The dialect-neutral store: the live write path (normalize -> one upsert -> count), batch
// writes, reads, and delegation to the migration runner and health check. It never lets a
// telemetry failure reach the caller (AC-27): every path that can fail is caught, counted
// and WARN-logged here.
import type { DialectStore, StoreContext } from './dialect.js';
import { normalizeFrame, type UpsertInput } from './frame-normalization.js';
import { createWallClock } from './instant.js';
import { defaultLogger, describeError } from './logger.js';
import type { RecordOutcome, StoreOptions, SubagentContextStore, SubagentFrame } from './types.js';
import { createCounters } from './writer-counters.js';

function frameIdentity(frame: unknown): { session_id: unknown; tool_call_id: unknown } {
  const f = (frame ?? {}) as Record<string, unknown>;
  try {
    return { session_id: f.sessionId ?? null, tool_call_id: f.toolCallId ?? null };
  } catch {
    return { session_id: null, tool_call_id: null };
  }
}

export function createStore(db: DialectStore, options: StoreOptions = {}): SubagentContextStore {
  const ctx: StoreContext = { dialect: db.dialect, clock: options.clock ?? createWallClock(), logger: options.logger ?? defaultLogger };
  const counters = createCounters();

  const warnFailed = (frame: unknown, err: unknown) => {
    try {
      ctx.logger.warn({ dialect: db.dialect, ...frameIdentity(frame), ...describeError(err) }, 'subagent context write failed');
    } catch {
      // a throwing logger must not break the product path either
    }
  };

  /** Counts the frame in and prepares its write, or returns its final outcome. */
  const prepare = (frame: unknown): { input: UpsertInput; observedAtNs: bigint } | RecordOutcome => {
    counters.attempted++;
    let normalized;
    let observedAtNs: bigint;
    try {
      normalized = normalizeFrame(frame);
      if (normalized.kind === 'skip') {
        counters.skipped_no_identity++; // AC-2; nothing else is counted for a skipped frame
        return 'skipped_no_identity';
      }
      observedAtNs = ctx.clock();
      if (typeof observedAtNs !== 'bigint') throw new TypeError('clock() must return a bigint of nanoseconds');
    } catch (err) {
      counters.failed++;
      warnFailed(frame, err);
      return 'failed';
    }
    if (normalized.anomalous) counters.anomalous_value++;
    if (normalized.unknownExecution) counters.unknown_execution++;
    return { input: normalized.input, observedAtNs };
  };

  const settle = (frame: unknown, err: Error | null): RecordOutcome => {
    if (err === null) {
      counters.persisted++;
      return 'persisted';
    }
    counters.failed++;
    warnFailed(frame, err);
    return 'failed';
  };

  return {
    async recordFrame(frame: SubagentFrame) {
      const prepared = prepare(frame);
      if (typeof prepared === 'string') return prepared;
      try {
        await db.writer.upsert(prepared.input, prepared.observedAtNs);
        return settle(frame, null);
      } catch (err) {
        return settle(frame, err instanceof Error ? err : new Error(String(err)));
      }
    },

    async recordFrames(frames: SubagentFrame[]) {
      const list: unknown[] = Array.isArray(frames) ? frames : [];
      const outcomes: RecordOutcome[] = new Array(list.length);
      const pending: { index: number; input: UpsertInput; observedAtNs: bigint }[] = [];
      list.forEach((frame, index) => {
        const prepared = prepare(frame);
        if (typeof prepared === 'string') outcomes[index] = prepared;
        else pending.push({ index, ...prepared });
      });
      if (pending.length === 0) return outcomes;
      let results: (Error | null)[];
      try {
        results = await db.writer.upsertBatch(pending);
      } catch (err) {
        results = pending.map(() => (err instanceof Error ? err : new Error(String(err))));
      }
      pending.forEach((p, i) => {
        outcomes[p.index] = settle(list[p.index], results[i] ?? null);
      });
      return outcomes;
    },

    counters: () => ({ ...counters }),
    runMigrations: () => db.runMigrations(ctx),
    checkHealth: () => db.checkHealth(ctx),
    listBySession: (sessionId) => db.writer.listBySession(sessionId),
    listByTurn: (sessionId, turnId) => db.writer.listByTurn(sessionId, turnId),
  };
}
