// What the demo needs from a database, one implementation per dialect
// (sqlite-demo-database.ts, postgres-demo-database.ts). Each calls only the demo's own
// generated statements (queries/<dialect>/demo/ → generated/<dialect>/demo/, not part of the
// package's index), and only where the demo stands in for the host: writing host rows, and
// checking that a database is one it may write into. Every figure it prints is read through
// the store (store.report(), checkHealth(), listBySession()), like any other consumer.
import { SubagentContextError } from '../errors.js';
import type { StoreOptions, SubagentContextStore } from '../index.js';
import type { HostMessage, HostSession } from './host-rows.js';
import type { DemoHost } from './live-stream.js';

export interface DemoDatabase extends DemoHost {
  /** A line under the report's examples about this database (PostgreSQL: the URL shown is masked), if any. */
  readonly examplesNote?: string;
  /** Where the demo wrote, for the report (credentials removed). */
  readonly where: string;
  /** The CLI's database option for this database, shell-quoted (credentials removed). */
  readonly cliOption: string;
  /** A shell command that opens this database in its own client (credentials removed). */
  readonly clientCommand: string;
  store(options: StoreOptions): SubagentContextStore;
  /** Creates the host tables as the host ships them (schema/host). */
  createHostTables(): Promise<void>;
  /** Seeds the whole history in one transaction. */
  insertHistory(sessions: readonly HostSession[], messages: readonly HostMessage[]): Promise<void>;
  close(): Promise<void>;
}

/** The demo refuses to write into a database it did not create (the CLI exits 2 on it). */
export class DemoRefusal extends SubagentContextError {
  override name = 'DemoRefusal';

  constructor(message: string) {
    super('demo_refused', message);
  }
}

/** Text quoted for a POSIX shell. */
export function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `text` as a shell word: as it is when nothing in it is special to a shell, else quoted. */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : shellQuoted(text);
}

/** demo_insert_message's parameters for one message; `timestamp` renders the dialect's host form. */
export function demoMessageParams(m: HostMessage, timestamp: (ns: bigint) => string) {
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
