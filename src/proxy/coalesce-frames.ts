// A batch's frames of one tool call, merged before they reach the store — but ONLY where
// that is provably the same as applying them in order. `absorbs(later, earlier)` holds when,
// for every state the row could be in (absent, open, settled), upserting `earlier` then
// `later` leaves exactly the row `later` alone leaves, column by column, by the merge rules
// of queries/<dialect>/upsert_subagent_context.sql — given that both are observed at the same
// instant (the proxy's store reads one instant per batch: *-proxy-database.ts). Anything
// else is kept and applied in order. test/proxy-coalesce.test.ts applies random sequences
// both ways on both dialects and compares the rows.
import { normalizeFrame, type NormalizedFrame } from '../frame-normalization.js';
import { isTerminalToolStatus } from '../terminal-tool-status.js';
import type { SubagentFrame } from '../types.js';

/** COALESCE(new, old) columns (AC-4, AC-5, AC-10a, AC-7a..AC-9): a later NULL keeps an earlier value. */
const REPLACED = [
  'parentToolCallId',
  'subagentType',
  'description',
  'agentId',
  'childSessionId',
  'model',
  'agentStatus',
  'totalTokens',
  'toolUseCount',
  'durationMs',
] as const;

export function absorbs(later: NormalizedFrame, earlier: NormalizedFrame): boolean {
  if (earlier.taskId !== later.taskId) return false; // task_id is write-once: the inserting frame's
  if (earlier.turnId !== null && earlier.turnId !== later.turnId) return false; // AC-2a: the first turn wins
  if (earlier.isAsync > later.isAsync) return false; // is_async is sticky
  for (const column of REPLACED) if (earlier[column] !== null && later[column] === null) return false;
  // AC-11/AC-12: a terminal status settles the row and freezes tool_status; only the same
  // terminal status after it changes nothing. Before settlement tool_status is COALESCE(new, old).
  if (isTerminalToolStatus(earlier.toolStatus)) return later.toolStatus === earlier.toolStatus;
  return earlier.toolStatus === null || later.toolStatus !== null;
}

export interface Coalesced {
  /** The frames to write, in their original order. */
  frames: SubagentFrame[];
  /** carrier[i]: the index in `frames` of the frame whose write carries input frame i. */
  carrier: number[];
}

export function coalesceFrames(input: readonly SubagentFrame[]): Coalesced {
  const normalized = input.map((frame) => {
    try {
      return normalizeFrame(frame);
    } catch {
      return null; // unreadable: left alone, the store counts it
    }
  });
  const absorbedBy: number[] = new Array<number>(input.length).fill(-1);
  const kept = new Map<string, number[]>(); // row key → indexes of its frames not absorbed, in order
  for (let i = 0; i < input.length; i++) {
    const frame = normalized[i];
    if (frame === null) continue; // no identity: the store skips it, nothing to merge with
    const key = `${frame.sessionId}\u0000${frame.executionId}\u0000${frame.toolCallId}`;
    let stack = kept.get(key);
    if (!stack) kept.set(key, (stack = []));
    // earlier·later ≡ later for every row state, so a chain folds from the newest back.
    while (stack.length > 0 && absorbs(frame, normalized[stack[stack.length - 1]]!)) absorbedBy[stack.pop()!] = i;
    stack.push(i);
  }
  const position: number[] = new Array<number>(input.length);
  const frames: SubagentFrame[] = [];
  for (let i = 0; i < input.length; i++) if (absorbedBy[i] === -1) position[i] = frames.push(input[i]) - 1;
  const carrier: number[] = new Array<number>(input.length);
  for (let i = input.length - 1; i >= 0; i--) carrier[i] = absorbedBy[i] === -1 ? position[i] : carrier[absorbedBy[i]];
  return { frames, carrier };
}
