// What the demo needs from a database, one implementation per dialect
// (sqlite-demo-database.ts, postgres-demo-database.ts). Each calls only the generated
// demo_* query functions: the demo stands in for the host when it writes host rows, and
// reads its report figures with the same kind of typed, reviewed SQL as the package.
import { SubagentContextError } from '../errors.js';
import type { StoreOptions, SubagentContextStore } from '../index.js';
import type { DemoMessage, DemoSession } from './demo-history.js';
import type { DemoHost } from './live-stream.js';

export interface DemoFigures {
  /** Fan-out k → number of turns with exactly k subagent rows, and how many were all backfilled. */
  fanOut: { fanOut: number; turns: number; backfilledTurns: number }[];
  cards: { taskId: string; sessions: number; subagentContexts: number }[];
  /** One entry per settled subagent row; totalTokens null = never reported. */
  settled: { agentStatus: string | null; totalTokens: number | null; source: string }[];
  provenance: { source: string; rows: number; realExecution: number; settled: number; measured: number }[];
  /** kandev_meta's subagent_context_* keys, verbatim. */
  keys: { key: string; value: string }[];
}

export interface DemoDatabase extends DemoHost {
  readonly dialect: 'sqlite' | 'postgres';
  /** Where the demo wrote, for the report (credentials removed). */
  readonly where: string;
  store(options: StoreOptions): SubagentContextStore;
  /** Creates the host tables as the host ships them (schema/host). */
  createHostTables(): Promise<void>;
  /** Seeds the whole history in one transaction. */
  insertHistory(sessions: readonly DemoSession[], messages: readonly DemoMessage[]): Promise<void>;
  readFigures(): Promise<DemoFigures>;
  /** Shell commands that re-run some of the report's queries against the demo's database. */
  queryExamples(): string[];
  close(): Promise<void>;
}

/** The demo refuses to write into a database it did not create. */
export class DemoRefusal extends SubagentContextError {
  override readonly name = 'DemoRefusal';
  constructor(message: string) {
    super('demo_refused', message);
  }
}

/** Text quoted for a POSIX shell. */
export function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A generated statement as one line for a terminal, without pgtyped's `"col!"` hints. */
export function printableStatement(sql: string): string {
  return sql.replace(/\s+/g, ' ').replace(/"(\w+)[!?]"/g, '$1').trim();
}

export const toNumber = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
export const toNullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** demo_insert_message's parameters for one message; `timestamp` renders the dialect's host form. */
export function demoMessageParams(m: DemoMessage, timestamp: (ns: bigint) => string) {
  return {
    id: m.id,
    sessionId: m.sessionId,
    taskId: m.taskId,
    turnId: m.turnId,
    authorType: m.authorType,
    content: m.content,
    type: m.type,
    metadata: m.metadata,
    createdAt: timestamp(m.createdAtNs),
    updatedAt: m.updatedAtNs === null ? null : timestamp(m.updatedAtNs),
  };
}
