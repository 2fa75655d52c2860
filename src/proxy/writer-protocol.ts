// The messages between the relay and the writer process (IPC, 'advanced' serialization). Lines
// travel as one buffer per batch with their end offsets: one copy per batch, never one message
// per line (nor a clone of each line's whole backing pool).
export type ProxyTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface WriterConfig {
  target: ProxyTarget;
  executionId: string;
  task?: string;
  fallbackCwd: string;
}

export interface LineBatch {
  type: 'lines';
  bytes: Uint8Array;
  /** ends[i]: the end offset of line i in bytes. */
  ends: Uint32Array;
  /** directions[i]: 0 client → agent, 1 agent → client. */
  directions: Uint8Array;
}

export type ToWriter = LineBatch | { type: 'close' };

export interface WriterStats {
  lines: number;
  /** Updates the recognizer recognized as a subagent's. */
  recognized: number;
  written: number;
  failed: number;
  recognizerErrors: number;
}

export type FromWriter =
  | { type: 'ready'; migrationsOk: boolean }
  | { type: 'unavailable'; error: string }
  | { type: 'done'; stats: WriterStats }
  | { type: 'warn'; text: string }
  | { type: 'closed'; stats: WriterStats };
