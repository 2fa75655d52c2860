// A reference model of the live write path, written from the spec's text (Column-level
// normalization rules, AC-1 ... AC-12, AC-26, AC-31) and the documented wrong-type rule
// (docs/live-capture.md), deliberately NOT from the SQL or src/frame-normalization.ts: it
// keeps rows in a Map and merges field by field in plain TypeScript, so a test comparing
// the database with it compares two independent readings of the same contract.
//
// Time: the model reads its clock exactly when the store does — once per frame that passes
// the identity gate (a skipped frame has no observation time) — so a copy of the store's
// deterministic clock reproduces every instant.
//
// Columns: the model reads the spec's columns by hand, below. A text column the spec does not
// name (a documented extension, docs/spec-map.md) is modelled from its DDL tag (generated/columns.ts):
// the replace rule of AC-4/AC-5 on the field its @from names, so a column added by the recipe
// (docs/recipes.md) is compared without an edit here, and a spec column's tag is still checked
// against this independent reading.
import { createHash } from 'node:crypto';
import { subagentColumnRules, type TextColumnRow } from '../../generated/columns.js';
import type { SubagentContextRow, WriterCounters } from '../../src/types.js';

/** The spec's text columns (Column-level normalization rules): where a frame reports each. */
const SPEC_TEXT_COLUMNS: Readonly<Record<string, readonly ['frame' | 'payload', string]>> = {
  parent_tool_call_id: ['frame', 'parentToolCallId'], // AC-6
  subagent_type: ['payload', 'subagent_type'],
  description: ['payload', 'description'],
  agent_id: ['payload', 'agent_id'],
  child_session_id: ['payload', 'child_session_id'],
  model: ['payload', 'model'],
  agent_status: ['payload', 'status'], // AC-10a: the child's report, verbatim
};

/** Text columns beyond the spec's, from their tags: always @replace (the text class). */
export const EXTENSION_TEXT_COLUMNS: readonly (readonly [string, 'frame' | 'payload', string])[] = subagentColumnRules
  .filter((c) => c.text && !Object.hasOwn(SPEC_TEXT_COLUMNS, c.column))
  .map((c) => [c.column, c.from!.object, c.from!.field] as const);

export type ModelRow = Omit<SubagentContextRow, 'id'>;
export type ModelOutcome = 'persisted' | 'skipped_no_identity' | 'failed';

const SIX_TERMINAL = ['complete', 'completed', 'success', 'error', 'failed', 'cancelled']; // AC-11
const INT64_LIMIT = 2n ** 63n;

function field(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Text as a column stores it: a non-empty string both dialects hold verbatim, else absent. */
function storable(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return null;
  if (value.includes('\0')) return null; // PostgreSQL text cannot hold NUL
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return null; // lone high surrogate
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return null; // lone low surrogate
  }
  return value;
}

/** An id (documented limit: it must fit a btree index on both dialects): at most 512 UTF-8 bytes. */
function storableId(value: unknown): string | null {
  const s = storable(value);
  return s !== null && Buffer.byteLength(s, 'utf8') <= 512 ? s : null;
}

/** A metric as the model reads it: a measurement, "not reported", or anomalous (also not stored). */
function measure(value: unknown): { value: bigint | null; anomalous: boolean } {
  if (value === undefined || value === null) return { value: null, anomalous: false };
  let n: bigint | null = null;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isFinite(value) && Math.trunc(value) === value && Math.abs(value) < 2 ** 63) n = BigInt(value);
  if (n === null || n < 0n || n >= INT64_LIMIT) return { value: null, anomalous: true };
  return { value: n, anomalous: false };
}

/** Number when exact, bigint beyond 2^53, like the store's rows. */
function asRowNumber(n: bigint | null): number | bigint | null {
  if (n === null) return null;
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** 'YYYY-MM-DDTHH:MM:SS.ffffffZ', nanoseconds truncated to microseconds. */
export function modelInstant(ns: bigint): string {
  const micros = ns / 1000n;
  const millis = Number(micros / 1000n);
  return `${new Date(millis).toISOString().slice(0, 23)}${String(Number(micros % 1000n)).padStart(3, '0')}Z`;
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** AC-13: observed_at, then tool_call_id and agent_execution_id in byte order. */
export function ac13Order(a: ModelRow, b: ModelRow): number {
  if (a.observed_at !== b.observed_at) return a.observed_at < b.observed_at ? -1 : 1;
  return byteCompare(a.tool_call_id, b.tool_call_id) || byteCompare(a.agent_execution_id, b.agent_execution_id);
}

export class MergeModel {
  readonly rows = new Map<string, ModelRow>();
  readonly counters: WriterCounters = {
    attempted: 0,
    persisted: 0,
    skipped_no_identity: 0,
    anomalous_value: 0,
    failed: 0,
    unknown_execution: 0,
    ledger_failed: 0,
  };

  /** @param sessions the task_sessions ids that exist: a frame for any other fails on the foreign key. */
  constructor(private readonly sessions: ReadonlySet<string>) {}

  /** Seeds a row that something other than a live frame wrote (the backfill, a legacy build). */
  seed(row: ModelRow): void {
    this.rows.set(JSON.stringify([row.task_session_id, row.agent_execution_id, row.tool_call_id]), { ...row });
  }

  record(frame: unknown, clock: () => bigint): ModelOutcome {
    this.counters.attempted++;
    const session = storableId(field(frame, 'sessionId'));
    const task = storableId(field(frame, 'taskId'));
    const toolCall = storableId(field(frame, 'toolCallId'));
    if (session === null || task === null || toolCall === null) {
      this.counters.skipped_no_identity++; // AC-2: nothing else is counted
      return 'skipped_no_identity';
    }
    const payload = field(frame, 'payload');
    const tokens = measure(field(payload, 'total_tokens'));
    const duration = measure(field(payload, 'duration_ms'));
    const toolUses = measure(field(payload, 'tool_use_count'));
    if (tokens.anomalous || duration.anomalous || toolUses.anomalous) this.counters.anomalous_value++; // AC-9, once per frame
    const reportedExecution = storable(field(frame, 'executionId'));
    // AC-30 verbatim; an id beyond the documented bound is keyed by its SHA-256 digest so two
    // long executions never share a row (AC-32); absent or unstorable -> AC-31's sentinel.
    const execution =
      reportedExecution === null
        ? 'unknown'
        : (storableId(reportedExecution) ?? `sha256:${createHash('sha256').update(Buffer.from(reportedExecution, 'utf8')).digest('hex')}`);
    if (execution === 'unknown') this.counters.unknown_execution++;
    const at = modelInstant(clock());
    if (!this.sessions.has(session)) {
      this.counters.failed++; // the foreign key rejects it (AC-27)
      return 'failed';
    }

    // The frame's reported values; null = absent (AC-4). AC-7a: zero tokens/duration = absent.
    const toolStatus = storable(field(frame, 'toolStatus'));
    const text: Record<string, string | null> = {};
    for (const [column, [object, key]] of Object.entries(SPEC_TEXT_COLUMNS)) text[column] = storable(field(object === 'frame' ? frame : payload, key));
    for (const [column, object, key] of EXTENSION_TEXT_COLUMNS) text[column] = storable(field(object === 'frame' ? frame : payload, key));
    const reported = {
      turn_id: storableId(field(frame, 'turnId')),
      ...text,
      total_tokens: tokens.value === 0n ? null : asRowNumber(tokens.value),
      tool_use_count: asRowNumber(toolUses.value), // AC-8: a reported 0 is 0
      duration_ms: duration.value === 0n ? null : asRowNumber(duration.value),
    };
    const isAsync = field(payload, 'is_async') === true;
    const terminal = toolStatus !== null && SIX_TERMINAL.includes(toolStatus);

    const key = JSON.stringify([session, execution, toolCall]);
    const row = this.rows.get(key);
    if (!row) {
      this.rows.set(key, {
        ...(reported as Pick<ModelRow, 'turn_id' | 'total_tokens' | 'tool_use_count' | 'duration_ms'> & TextColumnRow), // every text column, by the loops above
        task_session_id: session,
        task_id: task,
        agent_execution_id: execution,
        tool_call_id: toolCall,
        tool_status: toolStatus,
        is_async: isAsync,
        source: 'live', // AC-1
        observed_at: at,
        settled_at: terminal ? at : null, // AC-11
        updated_at: at,
      });
    } else {
      // Write-once: task_id, agent_execution_id, source, observed_at (AC-1, AC-5 table).
      if (row.turn_id === null) row.turn_id = reported.turn_id; // AC-2a: first non-empty wins, NULL fills forward
      for (const column of [...Object.keys(text), 'total_tokens', 'tool_use_count', 'duration_ms'] as const) {
        const value = (reported as Record<string, unknown>)[column];
        if (value !== null) (row as Record<string, unknown>)[column] = value; // AC-5, never blank (AC-4)
      }
      if (row.settled_at === null) {
        if (toolStatus !== null) row.tool_status = toolStatus; // AC-12: frozen only once settled
        if (terminal) row.settled_at = at; // AC-11: first terminal observation
      }
      if (isAsync) row.is_async = true; // sticky
      row.updated_at = at;
    }
    this.counters.persisted++;
    return 'persisted';
  }

  bySession(sessionId: string): ModelRow[] {
    return [...this.rows.values()].filter((r) => r.task_session_id === sessionId).sort(ac13Order);
  }

  byTurn(sessionId: string, turnId: string): ModelRow[] {
    return this.bySession(sessionId).filter((r) => r.turn_id === turnId);
  }
}

/** A store row without its generated id, for comparison with the model. */
export function withoutId(row: SubagentContextRow): ModelRow {
  const { id: _id, ...rest } = row;
  return rest;
}
