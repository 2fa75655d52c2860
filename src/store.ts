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
//
// The usage ledger (SubagentFrame.usage, docs/acp-intake.md "Usage ledger"): written only
// after the frame's row persisted, by a statement of its own (isolated by the writer), so it
// can neither fail nor undo the row; a ledger failure counts `ledger_failed` (a qualifier:
// the frame stays `persisted`) and WARNs. A usage object that cannot be read is one too.
// On SQLite the row's write is done when the writer returns (./settled-write.ts), and the
// ledger row is written before anything is awaited: both land in the transaction the host
// holds open (a synchronous db.transaction() ends at the first await), never one outside it.
import { MAX_COLUMN_INSTANT_NS } from './column-time.js';
import type { DialectStore, StoreContext } from './dialect.js';
import { toError } from './errors.js';
import { MAX_ID_BYTES, normalizeFrame, type NormalizedFrame } from './frame-normalization.js';
import { createWallClock } from './instant.js';
import { describeError, storeLogger } from './logger.js';
import type { RecordOptions, RecordOutcome, StoreOptions, SubagentContextStore, SubagentFrame } from './types.js';
import { explainWriteError } from './unknown-session.js';
import { normalizeUsage, type NormalizedUsage, type UsageWrite } from './usage-normalization.js';
import { settledOutcome, SETTLED_OUTCOMES, valueOf } from './settled-write.js';
import { createCounters } from './writer-counters.js';

/** An array's largest length: a Proxy's `length` can be anything, and `new Array(n)` throws beyond it. */
const MAX_ARRAY_LENGTH = 2 ** 32 - 1;

/** A batch's length, or a RangeError when it is no array length (-1, 1.5, 2^32, NaN, a string). */
function batchLength(length: unknown): number {
  if (typeof length === 'number' && Number.isInteger(length) && length >= 0 && length <= MAX_ARRAY_LENGTH) return length;
  throw new RangeError(`the batch reports a length of ${typeof length === 'number' ? String(length) : typeof length}, which no array has`);
}

/** One frame admitted to the write: its parameters and its observation time (one clock read). */
interface Admitted {
  input: NormalizedFrame;
  observedAtNs: bigint;
  /** The frame's usage: none (null), its figures, or the error reading it threw. */
  usage: NormalizedUsage | null | { unreadable: unknown };
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

  /** AC-27: WARN with the session id and tool-call id, count `failed`; never throws (describeError is total, the logger guarded). */
  const fail = (identity: { session_id: unknown; tool_call_id: unknown }, err: unknown): 'failed' => {
    counters.failed++;
    logger.warn({ dialect: db.dialect, ...identity, ...describeError(err) }, 'subagent context write failed');
    return 'failed';
  };
  // A session the host has not saved is named as such (./unknown-session.ts), not as a raw foreign-key error.
  const failWrite = (input: NormalizedFrame, err: unknown): 'failed' => {
    let explained = err;
    try {
      explained = explainWriteError(err, input.sessionId);
    } catch {
      // a value that cannot be inspected (a Proxy whose traps throw) is reported as it came
    }
    return fail({ session_id: input.sessionId, tool_call_id: input.toolCallId }, explained);
  };

  /** Every instant the store records comes from the clock (DESIGN §2); a broken clock fails the frame. */
  const observe = (): bigint => {
    const ns = clock();
    if (typeof ns !== 'bigint' || ns < 0n || ns >= MAX_COLUMN_INSTANT_NS) {
      throw new RangeError(`clock() returned ${String(ns)}: expected bigint nanoseconds between 1970 and 9999`);
    }
    return ns;
  };

  /** A ledger failure: WARN and count; the frame's row is written and stays 'persisted'. */
  const failLedger = (input: NormalizedFrame, err: unknown): void => {
    counters.ledger_failed++;
    logger.warn(
      { dialect: db.dialect, session_id: input.sessionId, tool_call_id: input.toolCallId, ...describeError(err) },
      'subagent usage ledger write failed; the subagent row is written',
    );
  };

  /**
   * The ledger rows of frames whose rows were written, after them; never throws. Called with
   * nothing awaited since the rows' write, so a synchronous writer (SQLite) writes the ledger
   * rows in that same synchronous scope, inside the host's transaction when one is open.
   * Returns the promise of what is left, or undefined when nothing is (a writer that finished in
   * the call), so a frame's answer stays a settled one and the recorder's next write is not
   * pushed out of the host's synchronous transaction.
   */
  const writeUsage = (written: readonly Admitted[], client: unknown): Promise<void> | undefined => {
    const writes: UsageWrite[] = [];
    const owners: NormalizedFrame[] = [];
    for (const { input, observedAtNs, usage } of written) {
      if (usage === null) continue;
      if ('unreadable' in usage) failLedger(input, usage.unreadable);
      else if (usage.input !== null) {
        writes.push({ input, usage: usage.input, observedAtNs });
        owners.push(input);
      }
    }
    if (writes.length === 0) return undefined;
    const report = (results: readonly (Error | null)[]): void =>
      owners.forEach((input, i) => {
        const err = results[i];
        if (err !== null) failLedger(input, err ?? new Error('the ledger writer reported no outcome for this row'));
      });
    const failAll = (err: unknown): void => {
      const failure = toError(err);
      report(writes.map(() => failure));
    };
    let pending: Promise<(Error | null)[]>;
    try {
      pending = writer.setUsage(writes, client);
    } catch (err) {
      failAll(err);
      return undefined;
    }
    const done = settledOutcome(pending);
    if (done === undefined) return pending.then(report, failAll);
    // SQLite: written (or failed) in the call; nothing is left to wait for, so the frame's answer can be a settled one.
    return void ('error' in done ? failAll(done.error) : report(done.value));
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
    let usage: Admitted['usage'];
    try {
      usage = normalizeUsage(frame);
    } catch (err) {
      usage = { unreadable: err }; // counted ledger_failed once the row is written: the row does not depend on it
    }
    if (input.anomalous || (usage !== null && 'anomalous' in usage && usage.anomalous)) counters.anomalous_value++; // AC-9: once per frame
    if (input.unknownExecution) counters.unknown_execution++; // AC-31
    try {
      return { input, observedAtNs: observe(), usage };
    } catch (err) {
      return failWrite(input, err);
    }
  };

  /** The rest of a frame's write when the writer's promise is pending (PostgreSQL). */
  const finishWrite = async (write: Promise<void>, admitted: Admitted, client: unknown): Promise<RecordOutcome> => {
    try {
      await write;
    } catch (err) {
      return failWrite(admitted.input, err);
    }
    counters.persisted++;
    if (admitted.usage !== null) await writeUsage([admitted], client);
    return 'persisted';
  };

  return {
    recordFrame(frame: SubagentFrame, recordOptions?: RecordOptions<TClient>): Promise<RecordOutcome> {
      try {
        const admitted = admit(frame);
        if (typeof admitted === 'string') return SETTLED_OUTCOMES[admitted];
        let client: unknown;
        try {
          client = clientOf(recordOptions);
          const write = writer.upsert(admitted.input, admitted.observedAtNs, client);
          const done = settledOutcome(write);
          if (done === undefined) return finishWrite(write, admitted, client);
          valueOf(done); // SQLite: written, or failed (thrown here), in the call
        } catch (err) {
          return SETTLED_OUTCOMES[failWrite(admitted.input, err)];
        }
        // The ledger row follows without a turn in between: inside a host's synchronous transaction too.
        counters.persisted++;
        const ledger = admitted.usage === null ? undefined : writeUsage([admitted], client);
        return ledger === undefined ? SETTLED_OUTCOMES.persisted : ledger.then(() => 'persisted' as const);
      } catch (err) {
        return Promise.reject(err); // as the async function it was: a throw rejects, never escapes the call
      }
    },

    async recordFrames(frames: SubagentFrame[], recordOptions?: RecordOptions<TClient>) {
      let count = 0;
      try {
        if (Array.isArray(frames)) count = batchLength(frames.length); // a non-array is an empty batch
      } catch (err) {
        // An array whose length cannot be read (a Proxy), or is no array length: no frame can be told apart.
        logger.warn({ dialect: db.dialect, ...describeError(err) }, 'subagent context batch could not be read; nothing was recorded');
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
      let client: unknown;
      try {
        client = clientOf(recordOptions);
        const write = writer.upsertBatch(batch, client);
        const done = settledOutcome(write);
        results = done === undefined ? await write : valueOf(done); // see recordFrame
      } catch (err) {
        const failure = toError(err);
        results = batch.map(() => failure);
      }
      const written: Admitted[] = [];
      for (let j = 0; j < batch.length; j++) {
        const err = results[j];
        if (err === null) {
          counters.persisted++;
          outcomes[positions[j]] = 'persisted';
          if (batch[j].usage !== null) written.push(batch[j]);
        } else {
          outcomes[positions[j]] = failWrite(batch[j].input, err ?? new Error('the batch writer reported no outcome for this frame'));
        }
      }
      if (written.length) await writeUsage(written, client);
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
