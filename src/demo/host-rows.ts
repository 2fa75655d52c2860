// The host rows (task_sessions, task_session_messages) that the demo and the benchmarks'
// synthetic stores seed while standing in for the host, and the text form the host's Go
// SQLite driver writes their timestamps in. One definition for both (scripts/ imports it
// from here: src/ never imports scripts/). The package itself never writes these tables.
import { formatMicros } from '../instant.js';

/** One task_sessions row; instants are nanoseconds since the Unix epoch. */
export interface HostSession {
  id: string;
  taskId: string;
  createdAtNs: bigint;
}

/** One task_session_messages row as the host's message writer stores it. */
export interface HostMessage {
  id: string;
  sessionId: string;
  taskId: string;
  turnId: string | null;
  authorType: 'user' | 'agent';
  type: 'message' | 'tool_call';
  content: string;
  metadata: string | null;
  createdAtNs: bigint;
  /** NULL on rows older than the host's updated_at column. */
  updatedAtNs: bigint | null;
}

/**
 * The Go driver's text form the host stores on SQLite: `2026-08-03 15:32:20.184467+00:00`,
 * trailing fraction zeros trimmed (`…:20.1+00:00`, `…:20+00:00`; DESIGN §4), so what the
 * package reads is the real thing and not its own fixed-width form.
 */
export function goDriverTimestamp(ns: bigint): string {
  return `${formatMicros(ns).replace(/\.?0+$/, '')}+00:00`;
}
