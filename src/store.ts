// The dialect-neutral store: the live write path (normalize -> one upsert -> count), batch
// writes, and delegation to the dialect's reader, migration runner, health check and report.
// It never lets a telemetry failure reach the caller (AC-27): every path that can fail is
// caught, counted and WARN-logged here (through the guarded logger, src/logger.ts).
//
// Counting (AC-26), per frame: `attempted` first; then exactly one of `skipped_no_identity`
// (AC-2, nothing else counted), `persisted` or `failed`. The qualifiers `anomalous_value`
// and `unknown_execution` are counted for every frame that passes the identity gate,
// whatever its write's outcome (DESIGN §2). The same holds for a write inside a host's
// transaction (RecordOptions.client, DESIGN §8): 'persisted' there means written into it.
import { MAX_COLUMN_INSTANT_NS } from './column-time.js';
import type { DialectStore, StoreContext } from './dialect.js';
import { toError } from './errors.js';
import { MAX_ID_BYTES, normalizeFrame, type NormalizedFrame } from './frame-normalization.js';
import { createWallClock } from './instant.js';
import { describeError, storeLogger } from './logger.js';
import type { RecordOptions, RecordOutcome, StoreOptions, SubagentContextStore, SubagentFrame } from './types.js';
import { explainWriteError } from './unknown-session.js';
import { createCounters } from './writer-counters.js';

/** One frame admitted to the write: its parameters and its observation time (one clock read). */
interface Admitted {
  input: NormalizedFrame;
  observedAtNs: bigint;
}

/** The identity a WARN carries (AC-27), read defensively from a frame that could not be normalized. */
function rawIdentity(frame: unknown): { session_id: unknown; tool_call_id: unknown } {
  const loggable = (v: unknown) => (typeof v === 'string' ? v.slice(0, MAX_ID_BYTES) : null);
  try {
    const f = frame as { sessionId?: unknown; toolCallId?: unknown } | null | undefined;
    return { session_id: loggable(f?.sessionId), tool_call_id: loggable(f?.toolCallId) };
  } catch {
    return { session_id: null, tool_call_id: null };
  }
}

/**
 * RecordOptions.client as the host passed it (undefined when there is none). Read inside the
 * write's try, so an unreadable options object fails the frame instead of rejecting; whether
 * the value is a usable client is the dialect writer's call.
 */
function clientOf(options: unknown): unknown {
  return options === undefined || options === null ? undefined : (options as RecordOptions).client;
}

export function createStore<TClient = unknown>(db: DialectStore, options: StoreOptions = {}): SubagentContextStore<TClient> {
  const ctx: StoreContext = { dialect: db.dialect, clock: options.clock ?? createWallClock(), logger: storeLogger(options) };
  const { clock, logger } = ctx;
  const { writer, reader } = db;
  const counters = createCounters();

  /** AC-27: WARN with the session id and tool-call id, count `failed`; never throws. */
  const fail = (identity: { session_id: unknown; tool_call_id: unknown }, err: unknown): 'failed' => {
    counters.failed++;
    logger.warn({ dialect: db.dialect, ...identity, ...describeError(err) }, 'subagent context write failed');
    return 'failed';
  };
  // A session the host has not saved is named as such (./unknown-session.ts), not as a raw foreign-key error.
  const failWrite = (input: NormalizedFrame, err: unknown) =>
    fail({ session_id: input.sessionId, tool_call_id: input.toolCallId }, explainWriteError(err, input.sessionId));

  /** Every instant the store records comes from the clock (DESIGN §2); a broken clock fails the frame. */
  const observe = (): bigint => {
    const ns = clock();
    if (typeof ns !== 'bigint' || ns < 0n || ns >= MAX_COLUMN_INSTANT_NS) {
      throw new RangeError(`clock() returned ${String(ns)}: expected bigint nanoseconds between 1970 and 9999`);
    }
    return ns;
  };

  /** Counts a frame in and admits it to the write, or returns its final outcome. */
  const admit = (frame: unknown): Admitted | RecordOutcome => {
    counters.attempted++;
    let input: NormalizedFrame | null;
    try {
      input = normalizeFrame(frame);
    } catch (err) {
      return fail(rawIdentity(frame), err); // unreadable frame (a throwing getter or proxy)
    }
    if (input === null) {
      counters.skipped_no_identity++; // AC-2, before any metric is examined
      return 'skipped_no_identity';
    }
    if (input.anomalous) counters.anomalous_value++; // AC-9: once per frame
    if (input.unknownExecution) counters.unknown_execution++; // AC-31
    try {
      return { input, observedAtNs: observe() };
    } catch (err) {
      return failWrite(input, err);
    }
  };

  return {
    async recordFrame(frame: SubagentFrame, recordOptions?: RecordOptions<TClient>) {
      const admitted = admit(frame);
      if (typeof admitted === 'string') return admitted;
      try {
        await writer.upsert(admitted.input, admitted.observedAtNs, clientOf(recordOptions));
      } catch (err) {
        return failWrite(admitted.input, err);
      }
      counters.persisted++;
      return 'persisted';
    },

    async recordFrames(frames: SubagentFrame[], recordOptions?: RecordOptions<TClient>) {
      let count = 0;
      try {
        count = Array.isArray(frames) ? frames.length : 0;
      } catch {
        // an unreadable array is an empty batch
      }
      const outcomes: RecordOutcome[] = new Array(count);
      const batch: Admitted[] = [];
      const positions: number[] = [];
      for (let i = 0; i < count; i++) {
        let frame: unknown;
        try {
          frame = frames[i]; // a hole reads as undefined: skipped, like any frame without identity
        } catch (err) {
          counters.attempted++;
          outcomes[i] = fail({ session_id: null, tool_call_id: null }, err);
          continue;
        }
        const admitted = admit(frame);
        if (typeof admitted === 'string') outcomes[i] = admitted;
        else {
          batch.push(admitted);
          positions.push(i);
        }
      }
      if (batch.length === 0) return outcomes;
      let results: readonly (Error | null)[];
      try {
        results = await writer.upsertBatch(batch, clientOf(recordOptions));
      } catch (err) {
        const failure = toError(err);
        results = batch.map(() => failure);
      }
      for (let j = 0; j < batch.length; j++) {
        const err = results[j];
        if (err === null) {
          counters.persisted++;
          outcomes[positions[j]] = 'persisted';
        } else {
          outcomes[positions[j]] = failWrite(batch[j].input, err ?? new Error('the batch writer reported no outcome for this frame'));
        }
      }
      return outcomes;
    },

    counters: () => ({ ...counters }),
    runMigrations: (options) => db.runMigrations(ctx, options),
    checkHealth: () => db.checkHealth(ctx),
    ensureHostIndex: () => db.ensureHostIndex(),
    createHostTables: () => db.createHostTables(),
    report: (options) => db.report(ctx, options),
    listBySession: (sessionId) => reader.listBySession(sessionId),
    listByTurn: (sessionId, turnId) => reader.listByTurn(sessionId, turnId),
  };
}
