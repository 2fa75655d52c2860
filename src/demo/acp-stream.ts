// The demo's last live turn: a Claude Code fan-out as a host's ACP client receives it — the
// session/update notifications of a real run (src/demo/acp-recording.ts) — through the ACP
// recorder (subagent-context/acp), the wire → row path a host runs. The demo plays the host:
// `context` gives the recording's ACP session the host's identity, and the host's message
// writer stores one message per subagent launch (so the health check has its expected count).
import { createAcpRecorder } from '../acp/index.js';
import type { SubagentContextStore } from '../index.js';
import { CLAUDE_FANOUT_ACP_SESSION, CLAUDE_FANOUT_UPDATES } from './acp-recording.js';
import type { DemoHost } from './live-stream.js';
import type { SimulatedClock } from './simulated-clock.js';

export interface AcpStreamResult {
  updates: number;
  frames: number;
  subagents: number;
}

const MILLISECOND = 1_000_000n;

/** Claude's subagent launch, as the host's own normalization sees it: the first tool_call of an `Agent` call. */
function launchedAgent(update: object): string | undefined {
  const u = update as { sessionUpdate?: unknown; toolCallId?: unknown; _meta?: { claudeCode?: { toolName?: unknown } } };
  return u.sessionUpdate === 'tool_call' && u._meta?.claudeCode?.toolName === 'Agent' && typeof u.toolCallId === 'string' ? u.toolCallId : undefined;
}

export async function streamAcpTraffic(
  store: SubagentContextStore,
  host: DemoHost,
  clock: SimulatedClock,
  where: { sessionId: string; taskId: string; turnId: string; executionId: string },
): Promise<AcpStreamResult> {
  const recorder = createAcpRecorder(store, {
    context: (acpSessionId) =>
      acpSessionId === CLAUDE_FANOUT_ACP_SESSION
        ? { sessionId: where.sessionId, taskId: where.taskId, executionId: where.executionId, turnId: where.turnId }
        : undefined,
  });
  let frames = 0;
  let subagents = 0;
  for (const update of CLAUDE_FANOUT_UPDATES) {
    clock.advance(250n * MILLISECOND);
    const toolCallId = launchedAgent(update);
    if (toolCallId !== undefined) {
      subagents++;
      const at = clock.read();
      await host.insertMessage({
        id: `msg-acp-${String(subagents).padStart(2, '0')}`,
        sessionId: where.sessionId,
        taskId: where.taskId,
        turnId: where.turnId,
        authorType: 'agent',
        type: 'tool_call',
        content: 'Task',
        metadata: JSON.stringify({ tool_call_id: toolCallId, status: 'pending', title: 'Task', normalized: { kind: 'subagent_task', subagent_task: {} } }),
        createdAtNs: at,
        updatedAtNs: at,
      });
    }
    if ((await recorder.sessionUpdate({ sessionId: CLAUDE_FANOUT_ACP_SESSION, update })) !== undefined) frames++;
  }
  recorder.forget(CLAUDE_FANOUT_ACP_SESSION);
  return { updates: CLAUDE_FANOUT_UPDATES.length, frames, subagents };
}
