// The live half of the demo: after the upgrade, subagents arrive the way a host's ACP client
// receives them — session/update notifications recorded from real agents (recordings.ts),
// played through createAcpRecorder (subagent-context/acp), the wire → row path a host runs.
// Each turn below is one recording under one host identity, chosen so the store's identity
// rules show: a lost execution id, wire ids reused after a resume, a session without a task.
// The demo plays the host too: `context` gives the recording's ACP session the identity of the
// turn being played, and the host's message writer stores one message per subagent launch, as
// its own normalization sees it, so the health check has an independent expected count.
import { createAcpRecorder, type AcpHostContext } from '../acp/index.js';
import type { SubagentContextStore } from '../index.js';
import type { HostMessage, HostSession } from './host-rows.js';
import { loadRecording, type RecordingName } from './recordings.js';
import type { SimulatedClock } from './simulated-clock.js';

/** What the demo needs from the host side of its database. */
export interface DemoHost {
  insertMessage(message: HostMessage): Promise<void>;
  updateMessageMetadata(id: string, metadata: string, updatedAtNs: bigint): Promise<void>;
}

/** Fixed, realistic execution ids (the orchestrator's are uuid.New()). */
const EXECUTIONS = { first: '5f0c2a8e-9b1d-4c3e-8a7f-2d6b4e1c9a03', resumed: 'b71e4d92-3c5a-4f08-9e2d-7a1c6b5f8e44' } as const;

/** The seeded sessions the live turns land in. */
export interface LiveSessions {
  claude: HostSession;
  opencode: HostSession;
  /** A session whose task the host never resolved. */
  withoutTask: HostSession;
}

interface LiveTurn {
  recording: RecordingName;
  session: keyof LiveSessions;
  /** '' when the host lost it: the store keeps such rows under 'unknown' (AC-31). */
  executionId: string;
  says: string;
}

const LIVE_TURNS: readonly LiveTurn[] = [
  {
    recording: 'claude-fanout',
    session: 'claude',
    executionId: EXECUTIONS.first,
    says: "Claude Code: three reviewers in parallel, one nested, one in the background; the subagents' own tool calls made no row",
  },
  {
    recording: 'claude-subagents-capability',
    session: 'claude',
    executionId: EXECUTIONS.first,
    says: 'Claude Code with the `subagents` capability: subagent_update frames, the child session as the tool-call id, no usage',
  },
  {
    recording: 'opencode-fanout',
    session: 'opencode',
    executionId: '',
    says: "OpenCode, its execution id lost by the host: stored under the 'unknown' sentinel, counted in unknown_execution; OpenCode reports no tokens",
  },
  {
    recording: 'claude-fanout',
    session: 'claude',
    executionId: EXECUTIONS.resumed,
    says: 'the same Claude Code run after a resume: the new execution reused the wire ids, and each execution keeps its own rows',
  },
  {
    recording: 'opencode-fanout',
    session: 'withoutTask',
    executionId: EXECUTIONS.resumed,
    says: 'a session whose task never resolved: every frame skipped_no_identity, its messages left out of the health comparison',
  },
];

export interface LiveStreamResult {
  /** ACP notifications played, frames the recorder wrote, subagent launches the host saw. */
  updates: number;
  frames: number;
  subagents: number;
  /** One line per turn, for the walk-through. */
  notes: string[];
  /** Session and wire id that two executions both used. */
  reused: { sessionId: string; toolCallId: string };
}

type WireUpdate = { sessionUpdate?: unknown; toolCallId?: unknown; title?: unknown; status?: unknown; sessionId?: unknown; state?: { state?: unknown } };

/** The host's own normalization: the id a subagent launch is keyed on (Claude's `Agent`, OpenCode's `task`, a `subagent_update` child). */
function launchOf(update: object): string | undefined {
  const u = update as WireUpdate & { _meta?: { claudeCode?: { toolName?: unknown } } };
  if (u.sessionUpdate === 'subagent_update' && u.state?.state === 'running' && typeof u.sessionId === 'string') return u.sessionId;
  if (u.sessionUpdate !== 'tool_call' || typeof u.toolCallId !== 'string') return undefined;
  return u._meta?.claudeCode?.toolName === 'Agent' || u.title === 'task' ? u.toolCallId : undefined;
}

const subagentMetadata = (toolCallId: string, status: string) =>
  JSON.stringify({ tool_call_id: toolCallId, status, title: 'Task', normalized: { kind: 'subagent_task', subagent_task: {} } });

/** The host's message writer for one turn: a message per subagent launch, its status kept current. */
function hostMessageWriter(host: DemoHost, where: Pick<HostMessage, 'sessionId' | 'taskId' | 'turnId'>, firstNumber: number) {
  const launches = new Map<string, string>(); // launch id → the host's message id
  return {
    launches,
    async observe(update: object, at: bigint): Promise<void> {
      const launch = launchOf(update);
      const u = update as WireUpdate;
      if (launch !== undefined) {
        const id = `msg-live-${String(firstNumber + launches.size).padStart(3, '0')}`;
        launches.set(launch, id);
        const metadata = subagentMetadata(launch, 'pending');
        await host.insertMessage({ id, ...where, authorType: 'agent', type: 'tool_call', content: 'Task', metadata, createdAtNs: at, updatedAtNs: at });
      } else if (typeof u.toolCallId === 'string' && typeof u.status === 'string' && launches.has(u.toolCallId)) {
        await host.updateMessageMetadata(launches.get(u.toolCallId)!, subagentMetadata(u.toolCallId, u.status), at);
      }
    },
  };
}

const MILLISECOND = 1_000_000n;
const MINUTE = 60_000n * MILLISECOND;

export async function streamLiveFrames(store: SubagentContextStore, host: DemoHost, clock: SimulatedClock, sessions: LiveSessions): Promise<LiveStreamResult> {
  let playing: { acpSessionId: string; identity: AcpHostContext } | undefined;
  const recorder = createAcpRecorder(store, { context: (id) => (id === playing?.acpSessionId ? playing.identity : undefined) });
  const result: LiveStreamResult = { updates: 0, frames: 0, subagents: 0, notes: [], reused: { sessionId: sessions.claude.id, toolCallId: '' } };
  for (const [index, turn] of LIVE_TURNS.entries()) {
    clock.advance(2n * MINUTE);
    const session = sessions[turn.session];
    const recording = loadRecording(turn.recording);
    const where = { sessionId: session.id, taskId: turn.session === 'withoutTask' ? '' : session.taskId, turnId: `${session.id}-turn-live-${index + 1}` };
    playing = { acpSessionId: recording.acpSessionId, identity: { ...where, executionId: turn.executionId } };
    const messages = hostMessageWriter(host, where, result.subagents + 1);
    let frames = 0;
    for (const params of recording.updates) {
      clock.advance(250n * MILLISECOND);
      await messages.observe(params.update, clock.read());
      if ((await recorder.sessionUpdate(params)) !== undefined) frames++;
    }
    recorder.forget(recording.acpSessionId);
    // The first turn's first launch: the fourth turn plays the same recording again after a resume.
    if (index === 0) result.reused.toolCallId = [...messages.launches.keys()][0];
    const subagents = messages.launches.size;
    result.updates += recording.updates.length;
    result.frames += frames;
    result.subagents += subagents;
    result.notes.push(`${turn.recording}: ${recording.updates.length} notifications, ${frames} frames, ${subagents} subagents — ${turn.says}`);
  }
  return result;
}
