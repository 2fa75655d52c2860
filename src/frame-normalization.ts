// Turns one observed frame into the upsert's parameters, applying the spec's column rules
// in one place so the SQL can read NULL as "absent" (queries/<dialect>/upsert_subagent_context.sql).
// Frames come from agents over the wire, so nothing here trusts a type: any input, however
// hostile, yields either a skip or well-formed parameters, never an exception.

/** Dialect-neutral upsert parameters; each adapter renders them for its driver. */
export interface UpsertInput {
  sessionId: string;
  taskId: string;
  turnId: string | null;
  executionId: string;
  toolCallId: string;
  parentToolCallId: string | null;
  subagentType: string | null;
  description: string | null;
  agentId: string | null;
  childSessionId: string | null;
  model: string | null;
  agentStatus: string | null;
  toolStatus: string | null;
  isAsync: 0 | 1;
  totalTokens: bigint | null;
  toolUseCount: bigint | null;
  durationMs: bigint | null;
}

export type NormalizedFrame =
  | { kind: 'skip' }
  | { kind: 'write'; input: UpsertInput; anomalous: boolean; unknownExecution: boolean };

/** AC-31: the one sentinel for "no execution identity". A real id is always a UUID. */
export const UNKNOWN_EXECUTION = 'unknown';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Reads an own property only: inherited and prototype keys (`__proto__`) never count. */
function own(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * Column rule: '' is stored as NULL. A value that is not a string, or that holds a NUL
 * character (which PostgreSQL text cannot store), is treated as not reported, identically on
 * both dialects so the same frames always produce the same rows.
 */
function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && !value.includes('\u0000') ? value : null;
}

type Metric = { value: bigint | null; anomalous: boolean };

/**
 * A metric as reported: an integer within int64 (number or bigint). null/undefined is "not
 * reported". Anything else — negative (AC-9), a string, boolean, object, NaN, ±Infinity, a
 * fraction, beyond int64 — is not a measurement: NULL, and the frame counts anomalous_value.
 * -0 is 0.
 */
function metric(value: unknown): Metric {
  if (value === null || value === undefined) return { value: null, anomalous: false };
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else return { value: null, anomalous: true };
  if (n < INT64_MIN || n > INT64_MAX || n < 0n) return { value: null, anomalous: true };
  return { value: n, anomalous: false };
}

/** AC-7a: total_tokens and duration_ms are plain int64 on the wire, so 0 means "not reported". */
function zeroIsAbsent(m: Metric): Metric {
  return m.value === 0n ? { value: null, anomalous: m.anomalous } : m;
}

export function normalizeFrame(frame: unknown): NormalizedFrame {
  // AC-2: exactly these three identities gate the write; the execution id never does.
  const sessionId = text(own(frame, 'sessionId'));
  const taskId = text(own(frame, 'taskId'));
  const toolCallId = text(own(frame, 'toolCallId'));
  if (sessionId === null || taskId === null || toolCallId === null) return { kind: 'skip' };

  const payload = own(frame, 'payload');
  const totalTokens = zeroIsAbsent(metric(own(payload, 'total_tokens')));
  const durationMs = zeroIsAbsent(metric(own(payload, 'duration_ms')));
  const toolUseCount = metric(own(payload, 'tool_use_count')); // AC-8: a reported 0 stays 0
  const executionId = text(own(frame, 'executionId'));

  return {
    kind: 'write',
    anomalous: totalTokens.anomalous || durationMs.anomalous || toolUseCount.anomalous,
    unknownExecution: executionId === null || executionId === UNKNOWN_EXECUTION,
    input: {
      sessionId,
      taskId,
      toolCallId,
      turnId: text(own(frame, 'turnId')),
      executionId: executionId ?? UNKNOWN_EXECUTION,
      parentToolCallId: text(own(frame, 'parentToolCallId')),
      subagentType: text(own(payload, 'subagent_type')),
      description: text(own(payload, 'description')),
      agentId: text(own(payload, 'agent_id')),
      childSessionId: text(own(payload, 'child_session_id')),
      model: text(own(payload, 'model')),
      agentStatus: text(own(payload, 'status')),
      toolStatus: text(own(frame, 'toolStatus')),
      isAsync: own(payload, 'is_async') === true ? 1 : 0,
      totalTokens: totalTokens.value,
      toolUseCount: toolUseCount.value,
      durationMs: durationMs.value,
    },
  };
}
