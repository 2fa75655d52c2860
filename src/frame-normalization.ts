// Turns one observed frame into the upsert's parameters, applying the spec's column rules
// in one place so the SQL can read NULL as "absent" (queries/<dialect>/upsert_subagent_context.sql).
// Frames come from agents over the wire, so nothing here trusts a type: any input, however
// hostile, yields a skip or well-formed parameters. The rules, as a table, are in
// docs/live-capture.md; each line below names the criterion it implements.
//
// This runs once per frame on the hot path: the normalized frame and its parameter object
// are the allocations, plus, for each, the small object of the text columns the generated
// mappers return (generated/columns.ts, from the DDL's tags), spread in: about 0.1 us a frame
// each (best of 15 runs), the price of a column list that has one home. No closures.
import { randomUUID } from 'node:crypto';
import { pickTextColumns, readTextColumns, type TextColumnInput } from '../generated/columns.js';
import { recordableExecutionId, recordableId as id, storableText as text } from './identity.js';

// The identity bound lives with the one definition of a recordable id (src/identity.ts).
export { MAX_ID_BYTES } from './identity.js';

/**
 * Dialect-neutral upsert parameters; each adapter renders them for its driver. The text
 * columns (TextColumnInput: parentToolCallId, subagentType, description, agentId,
 * childSessionId, model, agentStatus, …) come from the DDL's column tags (generated/columns.ts).
 */
export interface UpsertInput extends TextColumnInput {
  sessionId: string;
  taskId: string;
  turnId: string | null;
  executionId: string;
  toolCallId: string;
  toolStatus: string | null;
  isAsync: 0 | 1;
  totalTokens: bigint | null;
  toolUseCount: bigint | null;
  durationMs: bigint | null;
}

/** The parameters plus the two AC-26 qualifiers the frame earns whatever the write's outcome. */
export interface NormalizedFrame extends UpsertInput {
  /** AC-9 (and the wrong-type rule): at least one metric was reported but is not a measurement. */
  anomalous: boolean;
  /** AC-31: written with the 'unknown' execution sentinel. */
  unknownExecution: boolean;
}

/** AC-31: the one sentinel for "no execution identity". A real id is always a UUID. */
export const UNKNOWN_EXECUTION = 'unknown';

const INT64_MAX = 2n ** 63n - 1n;

/** Marks a reported metric that is not a measurement; never stored. */
export const ANOMALOUS = Symbol('anomalous');

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Reads an own property only. Inherited keys never count, so a polluted Object.prototype
 * (or a `__proto__` key turned into a prototype) cannot fabricate an identity or a value.
 * A getter that throws propagates: the store counts such a frame `failed` (it cannot be read).
 */
export function own(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  return hasOwn.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * A metric as reported. null/undefined is "not reported" (AC-7, AC-7a for tool_use_count).
 * A reported integer within int64 (a number, or a bigint beyond 2^53) is stored verbatim;
 * -0 is 0. Anything else reported — negative (AC-9), and by the documented wrong-type rule a
 * string, boolean, object, NaN, ±Infinity, a fraction or a value beyond int64 — is not a
 * measurement: stored as "not reported" and the frame counts `anomalous_value`.
 */
export function metric(value: unknown): bigint | null | typeof ANOMALOUS {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** 63) return ANOMALOUS;
    return BigInt(value); // exact: an integral double converts without rounding
  }
  if (typeof value === 'bigint') return value < 0n || value > INT64_MAX ? ANOMALOUS : value;
  return ANOMALOUS;
}

/** A text column's value as reported: an own property holding storable text (AC-4: '' is absent). */
function ownText(object: unknown, field: string): string | null {
  return text(own(object, field));
}

/**
 * The frame's upsert parameters and qualifiers, or null when AC-2's identity gate rejects it.
 * Throws only when the frame cannot be read at all (a throwing getter or proxy).
 */
export function normalizeFrame(frame: unknown): NormalizedFrame | null {
  // AC-2: a session, task or tool-call id that is not recordable (src/identity.ts: empty, not a
  // string, unstorable, or beyond the indexable length) skips the frame before any metric is
  // examined; the execution id never does (AC-2 clarification, AC-31).
  const sessionId = id(own(frame, 'sessionId'));
  if (sessionId === null) return null;
  const taskId = id(own(frame, 'taskId'));
  if (taskId === null) return null;
  const toolCallId = id(own(frame, 'toolCallId'));
  if (toolCallId === null) return null;

  const payload = own(frame, 'payload');
  const totalTokens = metric(own(payload, 'total_tokens'));
  const durationMs = metric(own(payload, 'duration_ms'));
  const toolUseCount = metric(own(payload, 'tool_use_count'));
  const anomalous = totalTokens === ANOMALOUS || durationMs === ANOMALOUS || toolUseCount === ANOMALOUS; // AC-9: once per frame

  // AC-30 verbatim; beyond the length bound a digest stands in, so two long executions never
  // share a row (AC-32); absent or unstorable -> AC-31's sentinel.
  const executionId = recordableExecutionId(own(frame, 'executionId'));
  return {
    sessionId,
    taskId,
    turnId: id(own(frame, 'turnId')), // AC-2a; an unrecordable turn id (src/identity.ts) is not reported
    executionId: executionId ?? UNKNOWN_EXECUTION, // AC-31: never NULL, never ''
    toolCallId,
    // The text columns, each from the field its DDL tag names (AC-6 parentToolCallId; AC-10a
    // agentStatus, verbatim, never decides terminality): generated/columns.ts.
    ...readTextColumns(frame, payload, ownText),
    toolStatus: text(own(frame, 'toolStatus')), // AC-11: verbatim; the SQL classifies it
    isAsync: own(payload, 'is_async') === true ? 1 : 0, // sticky in the SQL; only `true` is a positive report
    // AC-7a: tokens and duration are plain int64 on the wire, so 0 means "not reported";
    // AC-8: a reported 0 tool count is a measurement.
    totalTokens: totalTokens === ANOMALOUS || totalTokens === 0n ? null : totalTokens,
    toolUseCount: toolUseCount === ANOMALOUS ? null : toolUseCount,
    durationMs: durationMs === ANOMALOUS || durationMs === 0n ? null : durationMs,
    anomalous,
    unknownExecution: executionId === null || executionId === UNKNOWN_EXECUTION,
  };
}

/**
 * The one mapper from an admitted frame to the values its upsert writes: the single upsert's
 * named parameters, every one spelled out (one object, no spread) so both drivers bind it as
 * is, and — renamed to column names by src/postgres/batch-rounds.ts — each element of the
 * batch statement's JSON. `metric` renders an int64 for the driver (SQLite binds a bigint;
 * PostgreSQL and the batch JSON take int64Text); `observedAt` is already the dialect's text.
 */
export function upsertParameters<M>(input: UpsertInput, observedAt: string, metric: (n: bigint | null) => M) {
  return {
    id: randomUUID(), // the one id generation: a new row's id, discarded when the frame merges (id is write-once)
    sessionId: input.sessionId,
    taskId: input.taskId,
    turnId: input.turnId,
    executionId: input.executionId,
    toolCallId: input.toolCallId,
    ...pickTextColumns(input),
    toolStatus: input.toolStatus,
    isAsync: input.isAsync,
    totalTokens: metric(input.totalTokens),
    toolUseCount: metric(input.toolUseCount),
    durationMs: metric(input.durationMs),
    observedAt,
  };
}

export type UpsertParameters<M> = ReturnType<typeof upsertParameters<M>>;

/** An int64 as decimal text: exact for all of int64 in pg's text parameters and in JSON. */
export const int64Text = (n: bigint | null): string | null => (n === null ? null : n.toString());
