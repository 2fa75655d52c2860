// The live half of the demo: after the upgrade, frames arrive the way Kandev's orchestrator
// delivers them — several per subagent (pending → in_progress → completed), interleaved
// across a parallel fan-out and out of order, one burst through recordFrames, an execution
// that rotates and reuses a wire tool_call_id while a late frame from the older execution
// is still in flight, a frame with an empty execution id, one with a negative metric, and
// one without a task id. The demo plays the host too: it writes the message row each
// subagent launch produces, exactly as the host's message writer would, so the health
// check has an independent expected count to compare against.
import type { SubagentContextStore, SubagentFrame, SubagentTaskPayload } from '../index.js';
import { streamAcpTraffic, type AcpStreamResult } from './acp-stream.js';
import type { HostMessage } from './host-rows.js';
import type { SimulatedClock } from './simulated-clock.js';

/** What the demo needs from the host side of its database. */
export interface DemoHost {
  insertMessage(message: HostMessage): Promise<void>;
  updateMessageMetadata(id: string, metadata: string, updatedAtNs: bigint): Promise<void>;
}

/** Fixed, realistic execution ids (the orchestrator's are uuid.New()). */
export const LIVE_EXECUTIONS = {
  first: '5f0c2a8e-9b1d-4c3e-8a7f-2d6b4e1c9a03',
  resumed: 'b71e4d92-3c5a-4f08-9e2d-7a1c6b5f8e44',
} as const;

export interface LiveStreamResult {
  frames: number;
  /** Frames that went through recordFrames in one burst. */
  burstFrames: number;
  /** Session and wire id that two executions both used. */
  reused: { sessionId: string; toolCallId: string };
  sessionId: string;
  /** One line per noteworthy delivery, for the report. */
  notes: string[];
  /** The turn that came off the wire: recorded ACP notifications through the ACP recorder. */
  acp: AcpStreamResult;
}

const MINUTE = 60_000_000_000n;

interface LiveSubagent {
  sessionId: string;
  taskId: string;
  turnId: string;
  executionId: string;
  toolCallId: string;
  messageId: string;
  description: string;
  subagentType: string;
}

export async function streamLiveFrames(
  store: SubagentContextStore,
  host: DemoHost,
  clock: SimulatedClock,
  where: { sessionId: string; taskId: string; otherSessionId: string; otherTaskId: string; thirdSessionId: string },
): Promise<LiveStreamResult> {
  let frames = 0;
  let messageNo = 0;
  const notes: string[] = [];
  const record = async (frame: SubagentFrame) => {
    frames++;
    return store.recordFrame(frame);
  };
  const frameOf = (s: LiveSubagent, toolStatus: string, payload: SubagentTaskPayload, overrides: Partial<SubagentFrame> = {}): SubagentFrame => ({
    sessionId: s.sessionId,
    taskId: s.taskId,
    turnId: s.turnId,
    executionId: s.executionId,
    toolCallId: s.toolCallId,
    toolStatus,
    payload: { description: s.description, subagent_type: s.subagentType, ...payload },
    ...overrides,
  });
  const metadataOf = (s: LiveSubagent, toolStatus: string, payload: SubagentTaskPayload) =>
    JSON.stringify({
      tool_call_id: s.toolCallId,
      status: toolStatus,
      title: 'Task',
      normalized: { kind: 'subagent_task', subagent_task: { description: s.description, subagent_type: s.subagentType, ...payload } },
    });
  /** The host writes the launch's message first, then the orchestrator records the frame. */
  const launch = async (s: LiveSubagent, taskId = s.taskId) => {
    const at = clock.read();
    await host.insertMessage({
      id: s.messageId,
      sessionId: s.sessionId,
      taskId,
      turnId: s.turnId,
      authorType: 'agent',
      type: 'tool_call',
      content: s.description,
      metadata: metadataOf(s, 'pending', {}),
      createdAtNs: at,
      updatedAtNs: at,
    });
  };
  const progress = async (s: LiveSubagent, toolStatus: string, payload: SubagentTaskPayload) => {
    await host.updateMessageMetadata(s.messageId, metadataOf(s, toolStatus, payload), clock.read());
  };
  const subagent = (turnId: string, executionId: string, toolCallId: string, subagentType: string, description: string, session = where): LiveSubagent => ({
    sessionId: session.sessionId,
    taskId: session.taskId,
    turnId,
    executionId,
    toolCallId,
    messageId: `msg-live-${String(++messageNo).padStart(2, '0')}`,
    description,
    subagentType,
  });

  // Turn 1 (first execution): a three-way review, frames interleaved across the fan-out.
  clock.advance(2n * MINUTE);
  const turn1 = `${where.sessionId}-turn-live-1`;
  const reviewers = [
    subagent(turn1, LIVE_EXECUTIONS.first, 'toolu_01LiveSecurityReview000', 'security-reviewer', 'Review the change as security-reviewer'),
    subagent(turn1, LIVE_EXECUTIONS.first, 'toolu_01LiveCodeReview000000', 'code-reviewer', 'Review the change as code-reviewer'),
    subagent(turn1, LIVE_EXECUTIONS.first, 'toolu_01LivePerfReview000000', 'performance-reviewer', 'Review the change as performance-reviewer'),
  ];
  for (const s of reviewers) {
    await launch(s);
    await record(frameOf(s, 'pending', {}));
  }
  const [security, code, perf] = reviewers;
  const done = (tokens: number, tools: number, ms: number): SubagentTaskPayload => ({
    status: 'completed',
    agent_id: `agent_${tokens.toString(16)}`,
    model: 'claude-opus-5[1m]',
    total_tokens: tokens,
    tool_use_count: tools,
    duration_ms: ms,
  });
  await record(frameOf(security, 'in_progress', { model: 'claude-opus-5[1m]' }));
  clock.advance(MINUTE);
  await progress(code, 'completed', done(41_207, 12, 58_311));
  await record(frameOf(code, 'completed', done(41_207, 12, 58_311)));
  await record(frameOf(perf, 'in_progress', { duration_ms: -1 }));
  notes.push(`a frame reporting duration_ms = -1 was written without the metric and counted in anomalous_value (AC-9)`);
  await record(frameOf(code, 'in_progress', { model: 'claude-opus-5[1m]' }));
  notes.push(`${code.toolCallId}'s in_progress frame arrived after its completion; its row stays completed (AC-12)`);
  clock.advance(MINUTE);
  await progress(security, 'completed', done(88_914, 31, 121_540));
  await record(frameOf(security, 'completed', done(88_914, 31, 121_540)));
  await progress(perf, 'completed', done(63_380, 19, 97_002));
  await record(frameOf(perf, 'completed', done(63_380, 19, 97_002)));

  // Turn 2 (first execution): a background dispatch, which never reports usage (AC-7).
  clock.advance(4n * MINUTE);
  const reusedId = 'toolu_01LiveReusedAcrossExecs';
  const background = subagent(
    `${where.sessionId}-turn-live-2`,
    LIVE_EXECUTIONS.first,
    reusedId,
    'general-purpose',
    'Run the full test suite in the background',
  );
  const dispatched: SubagentTaskPayload = {
    status: 'async_launched',
    agent_id: 'agent_5a1e0f2c9d31',
    model: 'claude-sonnet-5',
    is_async: true,
    total_tokens: 0,
    duration_ms: 0,
    output_file: '/tmp/claude/tasks/5a1e0f2c.output',
  };
  await launch(background);
  await record(frameOf(background, 'pending', {}));
  await progress(background, 'completed', dispatched);
  await record(frameOf(background, 'completed', dispatched));

  // The execution rotates (a resume). The new adapter's emitted-id map starts empty, so the
  // agent's reused wire id comes through verbatim (spec § Amendment 1). Turn 3 arrives as a
  // burst through recordFrames. The host finds the old message by (session, tool_call_id)
  // and updates it in place; only the second launch gets a new message.
  clock.advance(6n * MINUTE);
  const turn3 = `${where.sessionId}-turn-live-3`;
  const rerun = subagent(turn3, LIVE_EXECUTIONS.resumed, reusedId, 'test-runner', 'Re-run the failing integration tests');
  rerun.messageId = background.messageId;
  const docs = subagent(turn3, LIVE_EXECUTIONS.resumed, 'toolu_01LiveDocsWriter0000000', 'docs-writer', 'Document the new resume behaviour');
  await progress(rerun, 'pending', {});
  await launch(docs);
  const burst = [
    frameOf(rerun, 'pending', {}),
    frameOf(docs, 'pending', {}),
    frameOf(docs, 'completed', done(22_468, 7, 40_115)),
    frameOf(rerun, 'completed', done(35_902, 9, 74_660)),
  ];
  await progress(docs, 'completed', done(22_468, 7, 40_115));
  await progress(rerun, 'completed', done(35_902, 9, 74_660));
  frames += burst.length;
  await store.recordFrames(burst);

  // A late frame from the FIRST execution for the reused id: it lands on that execution's
  // own row and cannot clobber the resumed execution's (AC-30, AC-32).
  clock.advance(MINUTE);
  await record(frameOf(background, 'completed', dispatched));
  notes.push(
    `a late frame from execution ${LIVE_EXECUTIONS.first.slice(0, 8)}… reused ${reusedId}; it merged into its own execution's row, the newer execution's row is untouched (AC-32)`,
  );

  // Another session's frames arrive with an empty execution id: stored as 'unknown' (AC-31).
  clock.advance(3n * MINUTE);
  const other = { sessionId: where.otherSessionId, taskId: where.otherTaskId };
  const anonymous = subagent(`${other.sessionId}-turn-live-1`, '', 'toolu_01LiveNoExecutionId000', 'Explore', 'Map the callers of recordSubagentContext', {
    ...where,
    ...other,
  });
  await launch(anonymous);
  await record(frameOf(anonymous, 'pending', {}));
  await progress(anonymous, 'completed', done(17_733, 22, 33_090));
  await record(frameOf(anonymous, 'completed', done(17_733, 22, 33_090)));
  notes.push(`two frames with an empty execution id were stored under the 'unknown' sentinel and counted in unknown_execution (AC-31)`);

  // A frame whose session never resolved a task: the host still writes its message (with an
  // empty task_id), the writer skips it (AC-2), and the health check excludes it (AC-28).
  clock.advance(2n * MINUTE);
  const orphan = subagent(
    `${where.thirdSessionId}-turn-live-1`,
    LIVE_EXECUTIONS.resumed,
    'toolu_01LiveWithoutTaskId000',
    'general-purpose',
    'Summarise the open review threads',
    { ...where, sessionId: where.thirdSessionId, taskId: '' },
  );
  await launch(orphan, '');
  await record(frameOf(orphan, 'pending', {}, { taskId: null }));
  notes.push(`a frame without a task id was skipped (skipped_no_identity, AC-2); its message is excluded from the health comparison`);

  // Turn 4 (resumed execution): a Claude Code fan-out straight off the wire — ACP notifications
  // recorded from a real run — through the ACP recorder (src/demo/acp-stream.ts).
  clock.advance(2n * MINUTE);
  const acp = await streamAcpTraffic(store, host, clock, { ...where, turnId: `${where.sessionId}-turn-live-4`, executionId: LIVE_EXECUTIONS.resumed });
  frames += acp.frames;
  notes.push(
    `${acp.updates} ACP session/update notifications recorded from a real Claude Code run went through createAcpRecorder: ${acp.frames} frames, ${acp.subagents} subagents (one nested, one in the background); the subagents' own tool calls made no row`,
  );

  return { frames, burstFrames: burst.length, reused: { sessionId: where.sessionId, toolCallId: reusedId }, sessionId: where.sessionId, notes, acp };
}
