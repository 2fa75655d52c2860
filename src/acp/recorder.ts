// createAcpRecorder (DESIGN §10): the recognizer plus the host's identity, written through the
// store. One recordFrame per recognized update; never rejects.
//
// Order: the ACP SDKs do not wait for an async notification handler before dispatching the
// next one, so a host may call sessionUpdate without awaiting. Writes of one ACP session are
// chained so they reach the store in the order given (recognition itself is synchronous, so the
// accumulated payload is always that of the update's position in the stream).
// Identity: `context` is the host's; a context that returns nothing makes the frame
// identity-less, and the store counts it skipped_no_identity (AC-26: nothing lost silently);
// one that throws, rejects or does not answer within contextTimeoutMs fails that update (WARN).
import { clipMarked } from '../clip-text.js';
import { describeError, guardedLogger } from '../logger.js';
import { MAX_TIMER_MS } from '../max-timer.js';
import { isSettledWrite, SETTLED_OUTCOMES } from '../settled-write.js';
import type { RecordOptions, RecordOutcome, SubagentContextStore, SubagentFrame } from '../types.js';
import { createSubagentRecognizer } from './recognizer.js';
import type { AcpHostContext, AcpRecorder, AcpRecorderCounters, AcpRecorderOptions, AcpSessionUpdateParams, RecognizedSubagentUpdate } from './types.js';

const TIMED_OUT = Symbol('timed out');
/** Most distinct titles warned about (one WARN each); beyond it, counted but not warned again. */
const MAX_WARNED_TITLES = 1024;
/**
 * A title is kept (and warned about) up to this many characters: an agent's title is its data,
 * and 1,024 remembered titles of a megabyte each would be a gigabyte held for the recorder's life.
 */
const MAX_TITLE_CHARS = 256;

/**
 * contextTimeoutMs as a timer: undefined (no timer) for Infinity or anything beyond setTimeout's
 * range, which Node would otherwise turn into a 1 ms timeout failing every async context; the
 * default for a value that is not a number (a NaN from an unset environment variable); at least 0.
 */
function contextTimer(value: number | undefined): number | undefined {
  if (typeof value !== 'number' || Number.isNaN(value)) return 5000;
  if (value > MAX_TIMER_MS) return undefined;
  return Math.max(0, value);
}

/** A title or id as warned and remembered: its first MAX_TITLE_CHARS characters, marked when cut. */
const clipped = (value: string): string => clipMarked(value, MAX_TITLE_CHARS);
/** What sessionUpdate returns for an update that is not a subagent's: one settled promise, shared. */
const NOT_RECORDED: Promise<undefined> = Promise.resolve(undefined);

export function createAcpRecorder(store: SubagentContextStore, options: AcpRecorderOptions): AcpRecorder {
  const timeoutMs = contextTimer(options.contextTimeoutMs);
  const logger = guardedLogger(options.logger); // absent: silent; throwing: never breaks sessionUpdate
  const counters: AcpRecorderCounters = {
    updates: 0,
    not_subagent: 0,
    recorded: 0,
    unknown_session: 0,
    context_failed: 0,
    context_timeout: 0,
    unrecognized_delegations: 0,
    requests: 0,
  };
  const warnedTitles = new Set<string>();
  const recognizer = createSubagentRecognizer({
    ...options.recognizer,
    onUnrecognizedDelegation(delegation) {
      counters.unrecognized_delegations++;
      const title = delegation.title === null ? `(${delegation.reason})` : clipped(delegation.title);
      if (!warnedTitles.has(title) && warnedTitles.size < MAX_WARNED_TITLES) {
        warnedTitles.add(title);
        logger.warn(
          {
            acpSessionId: clipped(delegation.acpSessionId),
            toolCallId: clipped(delegation.id),
            title: delegation.title === null ? null : title,
            reason: delegation.reason,
          },
          'acp recorder: a tool call looks like a subagent launch but matches no known agent; its subagents are not recorded (an agent or version this package does not recognise yet)',
        );
      }
      // The host's own callback last: one that throws (the recognizer catches it) costs no count or WARN.
      options.recognizer?.onUnrecognizedDelegation?.(delegation);
    },
  });
  /** The last pending write per ACP session; removed once it is the last and has settled. */
  const tails = new Map<string, Promise<RecordOutcome>>();

  /** The host's answer; a synchronous one is used as is (no timer, no extra promise on the hot path). */
  function identity(acpSessionId: string): AcpHostContext | undefined | Promise<AcpHostContext | undefined | typeof TIMED_OUT> {
    const answer = options.context(acpSessionId);
    if (!(answer instanceof Promise) && typeof (answer as { then?: unknown } | undefined)?.then !== 'function') return answer;
    if (timeoutMs === undefined) return Promise.resolve(answer); // no timeout: as long as the host takes
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
      timer.unref?.();
    });
    return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
  }

  function contextFailed(recognized: RecognizedSubagentUpdate, err: unknown): RecordOutcome {
    counters.context_failed++;
    logger.warn(
      { acpSessionId: recognized.acpSessionId, toolCallId: recognized.toolCallId, ...describeError(err) },
      'acp recorder: context threw; update not recorded',
    );
    return 'failed';
  }

  /**
   * One update's write. No async function and no await on the hot path (a synchronous context
   * and no earlier write pending): the store's own promise is returned as it is, so the
   * recorder adds one promise hop to recordFrame's, not three (issue 20's intake row).
   */
  function write(recognized: RecognizedSubagentUpdate, recordOptions: RecordOptions | undefined): Promise<RecordOutcome> | RecordOutcome {
    let answer: ReturnType<typeof identity>;
    try {
      answer = identity(recognized.acpSessionId);
    } catch (err) {
      return contextFailed(recognized, err);
    }
    if (answer instanceof Promise)
      return answer.then(
        (host) => record(recognized, host, recordOptions),
        (err: unknown) => contextFailed(recognized, err),
      );
    return record(recognized, answer, recordOptions);
  }

  function record(
    recognized: RecognizedSubagentUpdate,
    host: AcpHostContext | undefined | typeof TIMED_OUT,
    recordOptions: RecordOptions | undefined,
  ): Promise<RecordOutcome> | RecordOutcome {
    if (host === TIMED_OUT) {
      counters.context_timeout++;
      logger.warn(
        { acpSessionId: recognized.acpSessionId, toolCallId: recognized.toolCallId, timeoutMs },
        'acp recorder: context did not answer in time; update not recorded',
      );
      return 'failed';
    }
    const known = host !== null && typeof host === 'object' ? host : undefined;
    let frame: SubagentFrame;
    try {
      // The host's answer is the host's object: a getter that throws fails this update like a
      // context that throws, here on the synchronous path too (sessionUpdate never throws).
      frame = {
        sessionId: known ? known.sessionId : null,
        taskId: known ? known.taskId : null,
        executionId: known ? (known.executionId ?? null) : null,
        turnId: known ? (known.turnId ?? null) : null,
        toolCallId: recognized.toolCallId,
        parentToolCallId: recognized.parentToolCallId,
        toolStatus: recognized.toolStatus,
        payload: recognized.payload,
      };
    } catch (err) {
      return contextFailed(recognized, err);
    }
    if (!known) counters.unknown_session++;
    else counters.recorded++;
    if (recognized.usage !== undefined) frame.usage = recognized.usage; // the usage ledger's figures (Qwen Code's totals)
    try {
      return store.recordFrame(frame, recordOptions); // a rejection becomes 'failed' where the chain settles
    } catch {
      return 'failed'; // recordFrame never throws; a store that is not this package's might
    }
  }

  /**
   * One recognized update's write, after its ACP session's earlier ones. With none pending, a
   * write the store finished inside its call (a settled write: SQLite) or an outcome decided
   * before the store leaves nothing for a later write to wait on, and is returned as it is: no
   * chain, no promise of the recorder's own.
   */
  function submit(recognized: RecognizedSubagentUpdate, recordOptions: RecordOptions | undefined): Promise<RecordOutcome> {
    const key = recognized.acpSessionId;
    const previous = tails.get(key);
    if (previous !== undefined)
      return chain(
        key,
        previous.then(() => write(recognized, recordOptions)),
      );
    const written = write(recognized, recordOptions);
    if (isSettledWrite(written)) return written as Promise<RecordOutcome>;
    // An outcome decided before the store, or a store that is not this package's answering with a plain value.
    if (typeof written === 'string' && Object.hasOwn(SETTLED_OUTCOMES, written)) return SETTLED_OUTCOMES[written];
    return chain(key, written);
  }

  /** `written` as its session's pending tail until it settles. A rejection (a store that is not this package's) settles as 'failed': never rejects. */
  function chain(key: string, written: Promise<RecordOutcome> | RecordOutcome): Promise<RecordOutcome> {
    // The chain's end leaves the map once it has settled and nothing was chained after it.
    const settle = (outcome: RecordOutcome): RecordOutcome => {
      if (tails.get(key) === next) tails.delete(key);
      return outcome;
    };
    const next: Promise<RecordOutcome> = Promise.resolve(written).then(settle, () => settle('failed'));
    tails.set(key, next);
    return next;
  }

  return {
    sessionUpdate(params: AcpSessionUpdateParams, recordOptions?: RecordOptions): Promise<RecordOutcome | undefined> {
      counters.updates++;
      const recognized = recognizer.observe(params);
      if (!recognized) {
        counters.not_subagent++;
        return NOT_RECORDED;
      }
      return submit(recognized, recordOptions);
    },
    agentRequest(method: string, params: object, recordOptions?: RecordOptions): Promise<RecordOutcome | undefined> {
      counters.requests++;
      const recognized = recognizer.observeRequest(method, params);
      return recognized ? submit(recognized, recordOptions) : NOT_RECORDED;
    },
    async flush(): Promise<void> {
      await Promise.all(tails.values()); // each tail is the end of its session's chain
    },
    forget(acpSessionId: string): void {
      recognizer.forget(acpSessionId);
    },
    counters: () => ({ ...counters }),
  };
}
