// The messages between the relay and the writer process (IPC, 'advanced' serialization). Lines
// travel as one buffer per batch with their end offsets: one copy per batch, never one message
// per line (nor a clone of each line's whole backing pool).
export type ProxyTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

/**
 * The environment variable that carries the writer's config (JSON) to the writer process. Not
 * its argv: a process's command line is readable by every local user (`ps`), its environment
 * only by its own user, and the config holds the PostgreSQL URL with its password.
 */
export const WRITER_CONFIG_ENV = 'SUBAGENT_CONTEXT_WRITER_CONFIG';

export interface WriterConfig {
  target: ProxyTarget;
  executionId: string;
  task?: string;
  fallbackCwd: string;
  /** Where a writer left to finish in the background says what became of its lines. */
  logFile: string;
  /** Its cap once left to finish, should the proxy go without a drain to say it (it died); like the drain's, at most MAX_TIMER_MS. */
  backgroundMs?: number;
  /** The proxy's pid, whose end the writer's watchdog watches for. */
  proxyPid?: number;
}

export interface LineBatch {
  type: 'lines';
  bytes: Uint8Array;
  /** ends[i]: the end offset of line i in bytes. */
  ends: Uint32Array;
  /** directions[i]: 0 client → agent, 1 agent → client. */
  directions: Uint8Array;
}

/**
 * The proxy is leaving (the agent exited): everything it still held was sent before this.
 * The writer writes it all, then closes the store and exits. If the proxy leaves first (the
 * IPC channel closes), the writer goes on alone for at most `backgroundMs` (at most MAX_TIMER_MS:
 * the proxy clamps it, src/max-timer.ts).
 */
export interface DrainMessage {
  type: 'drain';
  backgroundMs: number;
  /**
   * A file holding the batches the proxy still had (v8-serialized LineBatch[], written by
   * spill.ts), read before the drain: the channel cannot take them while the writer does not
   * read it (inside a batch), and the proxy must not wait for that.
   */
  spill?: string;
}

/**
 * The proxy's last word before it leaves a writer to finish alone: what its own summary line
 * counted (the stats of the last 'done' it read). The writer's log then counts only what came
 * after, writes and failures alike, so the two lines add up to every write once.
 */
export interface ReportedMessage {
  type: 'reported';
  stats: WriterStats;
}

export type ToWriter = LineBatch | DrainMessage | ReportedMessage;

export interface WriterStats {
  lines: number;
  /** Updates the recognizer recognized as a subagent's. */
  recognized: number;
  written: number;
  failed: number;
  recognizerErrors: number;
  /** Tool calls that looked like a subagent launch of an agent the recognizer does not know (not recorded). */
  unrecognizedDelegations: number;
  /** Usage-ledger rows that failed (the store's ledger_failed): their subagent rows are written. */
  ledgerFailed: number;
}

export type FromWriter =
  /** The writer listens: the proxy sends nothing before this. */
  | { type: 'hello' }
  | { type: 'ready'; migrationsOk: boolean }
  | { type: 'unavailable'; error: string }
  | { type: 'done'; stats: WriterStats }
  | { type: 'warn'; text: string }
  /** The writer is done and exits; `unwritten` lines were cut off by the drain's time cap. */
  | { type: 'closed'; stats: WriterStats; unwritten: number };
