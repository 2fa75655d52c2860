// One agent's wire shape for a subagent launch: how to tell that a tool call is one, and what
// each update of it says. The recognizer keys state per tool call because the fact that makes
// a call a subagent (the first frame) and the fields it carries (later frames) arrive apart.
import type { SubagentTaskPayload, SubagentUsage } from '../../types.js';
import type { Json } from '../wire.js';

/** What one update says about its call; absent fields said nothing. */
export interface UpdateFacts {
  payload: SubagentTaskPayload;
  parentToolCallId?: string;
  /**
   * The parent link names a call of the update's own session (Qwen Code's `parentToolCallId`),
   * not the launch in the session above (Claude Code's `parentToolUseId` on a child session).
   */
  parentInSession?: true;
  /** A subagent type used only when no update names one in the input (Claude's `agentType`). */
  fallbackSubagentType?: string;
  /**
   * The status this frame reports for the subagent when it is not the ACP `status` field:
   * null reads the frame as status-less (Qwen Code's background launch ends its tool call, not
   * its subagent). Absent: the ACP status, verbatim.
   */
  toolStatus?: string | null;
  /**
   * The agent sends nothing more for this call, though the update is status-less (Claude's
   * `nonExecutionKind` result, after the terminal update): its state is dropped like a terminal one.
   */
  last?: boolean;
  /**
   * The subagent's usage summed over its run, when this update reports it (Qwen Code's
   * executionSummary): the ledger row is set to it. Never a delta, never accumulated.
   */
  usage?: SubagentUsage;
}

export interface AgentShape {
  readonly agent: 'claude' | 'opencode' | 'cursor' | 'auggie' | 'codex' | 'gemini' | 'qwen' | 'acp';
  /**
   * This agent's own tools whose names only mention an agent (Claude's `SubagentHandback`):
   * never reported as unrecognized delegations (src/acp/delegation-lookalike.ts).
   */
  readonly ordinaryToolNames?: ReadonlySet<string>;
  /**
   * For an agent that names its tools outside `_meta` (Gemini CLI in the tool-call id, Codex in
   * its collab item's title or activity kind): the tool this update is a call of, so a renamed
   * delegation tool of a known agent is reported (src/acp/delegation-lookalike.ts) rather than
   * taken for one of its ordinary tools.
   */
  toolNameOf?(update: Json): string | undefined;
  /**
   * For a tool call not seen before: true, this update launches a subagent; false, it is this
   * agent's tool call and not a subagent; undefined, it carries no evidence of this agent.
   */
  classify(update: Json): boolean | undefined;
  read(update: Json): UpdateFacts;
}
