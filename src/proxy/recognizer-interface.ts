// DESIGN §10's recognizer interface, structurally, as the proxy consumes it.
import type { SubagentTaskPayload } from '../types.js';

export interface RecognizedSubagentUpdate {
  acpSessionId: string;
  toolCallId: string;
  parentToolCallId: string | null;
  /** The ACP status verbatim; null on a status-less update. */
  toolStatus: string | null;
  /** Accumulated: everything learned so far for this call. */
  payload: SubagentTaskPayload;
}

export interface SubagentRecognizer {
  observe(params: { sessionId: string; update: object }): RecognizedSubagentUpdate | undefined;
  forget(acpSessionId: string): void;
}
