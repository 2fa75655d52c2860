// The recognizer alone on Qwen Code's shapes (src/acp/shapes/qwen.ts), frames as Qwen 0.24.4
// sends them (recordings/acp/qwen-fanout.jsonl): what is a subagent and what is not, the
// fields each frame adds, the background launch left open and settled by its notice.
import { describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { loadAcpFixture } from './helpers/acp-fixtures.js';

const S = 'qwen-1';
const up = (update: Record<string, unknown>, sessionId = S) => ({ sessionId, update });
const text = (t: string) => [{ type: 'content', content: { type: 'text', text: t } }];
const agentCall = (toolCallId: string, extra: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  up({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { toolName: 'agent', provenance: 'builtin', ...meta } });
const notice = (toolUseId: string, status: string, source = 'background_task_completed', task: Record<string, unknown> = {}) =>
  up({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `Background agent "x" ${status}.` },
    _meta: { source, qwenDiscreteMessage: true, backgroundTask: { taskId: `general-purpose-${toolUseId}`, status, kind: 'agent', toolUseId, ...task } },
  });

describe('ACP recognizer: Qwen Code', () => {
  it('a foreground agent call: input, then the summed executionSummary of the terminal frame; progress lines are not the result', () => {
    const r = createSubagentRecognizer();
    expect(
      r.observe(
        up({
          sessionUpdate: 'tool_call',
          toolCallId: 'q1',
          title: 'Agent',
          kind: 'other',
          status: 'pending',
          rawInput: {},
          _meta: { toolName: 'agent', provenance: 'builtin', phase: 'preparing' },
        }),
      ),
    ).toEqual({ acpSessionId: S, toolCallId: 'q1', parentToolCallId: null, toolStatus: 'pending', payload: {} });
    const input = { description: 'Review auth', prompt: 'Look at auth.', subagent_type: 'reviewer', run_in_background: false };
    expect(r.observe(agentCall('q1', { status: 'in_progress', rawInput: input }))?.payload).toEqual({
      description: 'Review auth',
      prompt: 'Look at auth.',
      subagent_type: 'reviewer',
      is_async: false,
    });
    // A progress line on the launching call: no toolName, marked subagentProgress.
    const progress = r.observe(
      up({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'q1',
        status: 'in_progress',
        content: text('ReadFile: NOTES.md'),
        _meta: { subagentType: 'reviewer', provenance: 'subagent', subagentProgress: true },
      }),
    );
    expect(progress?.payload.result_text).toBeUndefined();
    const last = r.observe(
      agentCall('q1', {
        status: 'completed',
        content: text('No findings.'),
        rawOutput: {
          type: 'task_execution',
          subagentName: 'reviewer',
          taskDescription: 'Review auth',
          taskPrompt: 'Look at auth.',
          executionMode: 'foreground',
          status: 'completed',
          tokenCount: 60, // output tokens only: not the figure stored
          result: 'No findings.',
          executionSummary: { rounds: 2, totalDurationMs: 516, totalToolCalls: 1, inputTokens: 240, outputTokens: 60, totalTokens: 300 },
        },
      }),
    );
    expect(last).toEqual({
      acpSessionId: S,
      toolCallId: 'q1',
      parentToolCallId: null,
      toolStatus: 'completed',
      payload: {
        description: 'Review auth',
        prompt: 'Look at auth.',
        subagent_type: 'reviewer',
        status: 'completed',
        is_async: false,
        total_tokens: 300,
        tool_use_count: 1,
        duration_ms: 516,
        result_text: 'No findings.',
      },
      usage: { requests: 2, input_tokens: 240, output_tokens: 60 }, // the usage ledger's row (no cachedTokens reported here)
    });
    expect(r.size()).toBe(0);
  });

  it('never a subagent: an ordinary Qwen tool call, the subagent’s own tool calls, a toolName without provenance', () => {
    const r = createSubagentRecognizer();
    for (const toolName of ['read_file', 'run_shell_command', 'edit', 'grep_search', 'list_agents', 'Agent']) {
      const call = { sessionUpdate: 'tool_call', toolCallId: `t-${toolName}`, title: toolName, kind: 'read', status: 'pending', rawInput: {} };
      expect(r.observe(up({ ...call, _meta: { toolName, provenance: 'builtin' } })), toolName).toBeUndefined();
      expect(r.observe(up({ ...call, status: 'completed', _meta: { toolName, provenance: 'builtin' } })), toolName).toBeUndefined();
    }
    // A subagent's own read_file: provenance subagent, the parent link: still not a subagent.
    expect(
      r.observe(
        up({
          sessionUpdate: 'tool_call',
          toolCallId: 't-nested-read',
          status: 'pending',
          rawInput: { file_path: '/x' },
          _meta: { toolName: 'read_file', provenance: 'subagent', parentToolCallId: 'q1', subagentType: 'general-purpose' },
        }),
      ),
    ).toBeUndefined();
    // `_meta.toolName` alone is no evidence of Qwen (its tool calls always carry a provenance).
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 't-other', status: 'pending', _meta: { toolName: 'agent' } }))).toBeUndefined();
    // A progress line for a call never seen: nothing to attach it to.
    expect(
      r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: 'q9', status: 'in_progress', _meta: { provenance: 'subagent', subagentProgress: true } })),
    ).toBeUndefined();
    expect(r.size()).toBe(0);
  });

  it('every ordinary tool call of the recorded run is no subagent, and every agent call is one', () => {
    const r = createSubagentRecognizer();
    const recognized = new Set<string>();
    const ordinary = new Set<string>();
    for (const u of loadAcpFixture('qwen-fanout')) {
      const meta = u.update._meta as { toolName?: string } | undefined;
      const id = u.update.toolCallId as string | undefined;
      const result = r.observe(u);
      if (result) recognized.add(result.toolCallId);
      if (id !== undefined && meta?.toolName !== undefined && meta.toolName !== 'agent') ordinary.add(id);
    }
    expect(ordinary.size).toBeGreaterThan(0); // the security reviewer's read_file
    for (const id of ordinary) expect(recognized.has(id), id).toBe(false);
    expect([...recognized].sort()).toEqual([
      'toolu_fake0001',
      'toolu_fake0002',
      'toolu_fake0003',
      'toolu_fake0004',
      'toolu_fake0005',
      'toolu_fake0006',
      'toolu_fake0008',
      'toolu_fake0012',
    ]);
  });

  it('a nested agent call: the parent from _meta.parentToolCallId, its own subagent type (not _meta.subagentType, the parent’s)', () => {
    const r = createSubagentRecognizer();
    const nested = r.observe(
      up({
        sessionUpdate: 'tool_call',
        toolCallId: 'q2',
        status: 'pending',
        rawInput: { description: 'Nested check', prompt: 'p', subagent_type: 'explorer', run_in_background: false },
        _meta: { toolName: 'agent', provenance: 'subagent', parentToolCallId: 'q1', subagentType: 'general-purpose' },
      }),
    );
    expect(nested).toMatchObject({ toolCallId: 'q2', parentToolCallId: 'q1', toolStatus: 'pending', payload: { subagent_type: 'explorer', is_async: false } });
  });

  it('a background launch: its own completed frame is status-less (the row stays open); the completion notice settles it', () => {
    const r = createSubagentRecognizer();
    r.observe(agentCall('q3', { status: 'in_progress', rawInput: { description: 'Audit', prompt: 'p', subagent_type: 'general-purpose' } })); // Qwen's default: no flag
    const launched = r.observe(
      agentCall('q3', {
        status: 'completed',
        content: text('Background agent launched successfully.\ntask_id: general-purpose-q3 (internal ID)\noutput_file: /h/.qwen/agent-q3.jsonl (for review)'),
        rawOutput: { type: 'task_execution', subagentName: 'general-purpose', executionMode: 'background', status: 'background' },
      }),
    );
    expect(launched).toMatchObject({
      toolCallId: 'q3',
      toolStatus: null,
      payload: { status: 'background', is_async: true, output_file: '/h/.qwen/agent-q3.jsonl' },
    });
    expect(launched?.payload.result_text).toBeUndefined(); // the launch notice is not the subagent's result
    expect(r.size()).toBe(1); // still remembered: its end is to come
    expect(r.observe(notice('q3', 'failed'))).toEqual({
      acpSessionId: S,
      toolCallId: 'q3',
      parentToolCallId: null,
      toolStatus: 'failed',
      payload: {
        description: 'Audit',
        prompt: 'p',
        subagent_type: 'general-purpose',
        status: 'failed',
        agent_id: 'general-purpose-q3',
        is_async: true,
        output_file: '/h/.qwen/agent-q3.jsonl',
      },
    });
    expect(r.size()).toBe(0);
  });

  it('a completion notice for a call not remembered is still a frame with its status; the model’s answer to it, other kinds and plain chunks are not', () => {
    const r = createSubagentRecognizer();
    expect(r.observe(notice('gone', 'cancelled', 'background_notification'))).toEqual({
      acpSessionId: S,
      toolCallId: 'gone',
      parentToolCallId: null,
      toolStatus: 'cancelled',
      payload: { status: 'cancelled', agent_id: 'general-purpose-gone', is_async: true },
    });
    expect(r.size()).toBe(0); // nothing remembered for it
    expect(r.observe(notice('gone', 'completed', 'background_notification_response'))).toBeUndefined();
    expect(r.observe(notice('sh1', 'completed', 'background_task_completed', { kind: 'shell' }))).toBeUndefined();
    expect(r.observe(notice('x', 'completed', 'background_task_completed', { toolUseId: undefined }))).toBeUndefined();
    expect(r.observe(notice('x', '', 'background_task_completed'))).toBeUndefined();
    expect(r.observe(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }))).toBeUndefined();
    expect(
      r.observe(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage: { totalTokens: 150 } } })),
    ).toBeUndefined();
  });
});
