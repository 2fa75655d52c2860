// AC-11: the ACP tool-call statuses that settle a subagent. Exactly six; the list is
// repeated in the SQL that classifies terminality (the live upsert, the backfill), and
// test/live-terminal-status-pin.test.ts pins every copy (found by content) to this one.
export const TERMINAL_TOOL_STATUSES = ['complete', 'completed', 'success', 'error', 'failed', 'cancelled'] as const;

export type TerminalToolStatus = (typeof TERMINAL_TOOL_STATUSES)[number];

const terminal: ReadonlySet<string> = new Set(TERMINAL_TOOL_STATUSES);

/** True when an ACP tool status is terminal. Case-sensitive, verbatim, like the host's. */
export function isTerminalToolStatus(status: string | null | undefined): status is TerminalToolStatus {
  return typeof status === 'string' && terminal.has(status);
}
