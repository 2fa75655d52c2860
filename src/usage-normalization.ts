// A frame's usage (SubagentFrame.usage) turned into the ledger statement's parameters
// (queries/<dialect>/set_subagent_usage.sql), by the rules the row's metrics follow
// (./frame-normalization.ts): a figure reported as anything but an integer within int64 is
// not a measurement (stored NULL, the frame counts anomalous_value); unlike total_tokens, a
// reported 0 is a measurement here (Qwen Code's `cachedTokens: 0` says no cache was read).
// The model is part of the ledger's key, so it obeys the ids' bound (src/identity.ts); none,
// or one the key cannot hold, is 'unknown' (the ledger's documented sentinel).
import { ANOMALOUS, metric, own } from './frame-normalization.js';
import { recordableId } from './identity.js';

/** The ledger sentinel for "no response named a model" (schema/<dialect>/*_usage_ledger.sql). */
export const UNKNOWN_MODEL = 'unknown';

export interface UsageInput {
  model: string;
  requests: bigint | null;
  inputTokens: bigint | null;
  outputTokens: bigint | null;
  cacheReadInputTokens: bigint | null;
  cacheCreationInputTokens: bigint | null;
}

export interface NormalizedUsage {
  /** null: nothing reported, no ledger write. */
  input: UsageInput | null;
  /** At least one figure was reported but is not a measurement. */
  anomalous: boolean;
}

const FIGURES = ['requests', 'input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

/** null when the frame carries no usage. Throws only when the frame cannot be read (a throwing getter). */
export function normalizeUsage(frame: unknown): NormalizedUsage | null {
  const usage = own(frame, 'usage');
  if (usage === undefined || usage === null) return null;
  let anomalous = false;
  let reported = false;
  const [requests, inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens] = FIGURES.map((name) => {
    const value = metric(own(usage, name));
    if (value === ANOMALOUS) {
      anomalous = true;
      return null;
    }
    if (value !== null) reported = true;
    return value;
  });
  if (!reported) return { input: null, anomalous };
  const model = recordableId(own(usage, 'model')) ?? UNKNOWN_MODEL;
  return { input: { model, requests, inputTokens, outputTokens, cacheReadInputTokens, cacheCreationInputTokens }, anomalous };
}

/** One ledger row to set: the identity of the row it annotates (the same normalized key) and its figures. */
export interface UsageWrite {
  input: { sessionId: string; executionId: string; toolCallId: string };
  usage: UsageInput;
  observedAtNs: bigint;
}

/** The ledger statement's named parameters; `metric` renders an int64 for the driver, `at` is the dialect's text. */
export function usageParameters<M>(write: UsageWrite, at: string, metric: (n: bigint | null) => M) {
  const { input, usage } = write;
  return {
    sessionId: input.sessionId,
    executionId: input.executionId,
    toolCallId: input.toolCallId,
    model: usage.model,
    requests: metric(usage.requests),
    inputTokens: metric(usage.inputTokens),
    outputTokens: metric(usage.outputTokens),
    cacheReadInputTokens: metric(usage.cacheReadInputTokens),
    cacheCreationInputTokens: metric(usage.cacheCreationInputTokens),
    at,
  };
}
