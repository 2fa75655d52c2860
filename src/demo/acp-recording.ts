// ACP session/update notifications from a real Claude Code run (claude-agent-acp 0.101.0, offline
// against a scripted model API): test/fixtures/acp/claude-fanout.jsonl, its tool calls and one
// message chunk, long texts cut, paths and token usage details dropped. The demo plays them
// through the ACP recorder, as a host's ACP client receives them. DO NOT EDIT by hand: derived
// from the fixture (scripts/record-acp-fixtures.ts re-records that).
export const CLAUDE_FANOUT_ACP_SESSION = '34dacb29-5fd8-4626-b5f9-4e08981c603d';

/** The update object of each session/update notification, in arrival order. */
export const CLAUDE_FANOUT_UPDATES: readonly object[] = [
  {
    toolCallId: 'toolu_fake0002',
    title: 'Task',
    name: 'Agent',
    kind: 'think',
    status: 'pending',
    content: [],
    rawInput: {},
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0002',
    title: 'Review security',
    content: [{ content: { text: 'READ-FIRST Review the change for security issues.', type: 'text' }, type: 'content' }],
    rawInput: {
      description: 'Review security',
      prompt: 'READ-FIRST Review the change for security issues.',
      subagent_type: 'general-purpose',
      run_in_background: false,
    },
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0003',
    title: 'Task',
    name: 'Agent',
    kind: 'think',
    status: 'pending',
    content: [],
    rawInput: {},
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0003',
    title: 'Review performance',
    content: [{ content: { text: 'Review the change for performance.', type: 'text' }, type: 'content' }],
    rawInput: { description: 'Review performance', prompt: 'Review the change for performance.', subagent_type: 'general-purpose', run_in_background: false },
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0004',
    title: 'Task',
    name: 'Agent',
    kind: 'think',
    status: 'pending',
    content: [],
    rawInput: {},
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0004',
    title: 'Review style',
    content: [{ content: { text: 'NESTED-LAUNCH Review the change for style.', type: 'text' }, type: 'content' }],
    rawInput: { description: 'Review style', prompt: 'NESTED-LAUNCH Review the change for style.', subagent_type: 'general-purpose', run_in_background: false },
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0005',
    title: 'Task',
    name: 'Agent',
    kind: 'think',
    status: 'pending',
    content: [],
    rawInput: {},
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0005',
    title: 'Background audit',
    content: [{ content: { text: 'Audit the dependencies.', type: 'text' }, type: 'content' }],
    rawInput: { description: 'Background audit', prompt: 'Audit the dependencies.', subagent_type: 'general-purpose', run_in_background: true },
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    content: { text: "**Warning:** We're changing auto mode to no longer charge for classifier requests in Claude Code. However, this sessi…", type: 'text' },
    _meta: { claudeCode: { kind: 'informational', level: 'warning' } },
    sessionUpdate: 'agent_message_chunk',
  },
  {
    toolCallId: 'toolu_fake0009',
    title: 'Read NOTES.md',
    name: 'Read',
    kind: 'read',
    status: 'pending',
    content: [],
    rawInput: { file_path: '/tmp/claude-fanout-clp3rJ/NOTES.md' },
    _meta: { claudeCode: { toolName: 'Read', parentToolUseId: 'toolu_fake0002' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0009',
    _meta: {
      claudeCode: {
        toolResponse: {
          type: 'text',
          file: { filePath: '/tmp/claude-fanout-clp3rJ/NOTES.md', content: '# notes\nnothing to see\n', numLines: 3, startLine: 1, totalLines: 3 },
        },
        toolName: 'Read',
        parentToolUseId: 'toolu_fake0002',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0005',
    _meta: {
      claudeCode: {
        toolResponse: {
          isAsync: true,
          status: 'async_launched',
          agentId: 'a8c51ec2297cd0712',
          description: 'Background audit',
          resolvedModel: 'claude-opus-5-5',
          prompt: 'Audit the dependencies.',
          outputFile: '/tmp/claude-fanout-clp3rJ/claude-0/-tmp-claude-fanout-clp3rJ/34dacb29-5fd8-4626-b5f9-4e08981c603d/tasks/a8c51ec2297cd…',
          canReadOutputFile: true,
          canContinueAgent: true,
        },
        toolName: 'Agent',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0015',
    title: 'Nested check',
    name: 'Agent',
    kind: 'think',
    status: 'pending',
    content: [{ content: { text: 'Check one detail and answer in one line.', type: 'text' }, type: 'content' }],
    rawInput: { description: 'Nested check', prompt: 'Check one detail and answer in one line.', subagent_type: 'general-purpose', run_in_background: false },
    _meta: { claudeCode: { toolName: 'Agent', parentToolUseId: 'toolu_fake0004' } },
    sessionUpdate: 'tool_call',
  },
  {
    toolCallId: 'toolu_fake0005',
    status: 'completed',
    content: [
      {
        content: {
          text: 'Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, incl…',
          type: 'text',
        },
        type: 'content',
      },
    ],
    rawOutput: [
      { type: 'text', text: 'Async agent launched successfully. (This tool result is internal metadata — never quote or paste any part of it, incl…' },
    ],
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0009',
    status: 'completed',
    content: [{ content: { text: '```\n1\t# notes\n2\tnothing to see\n3\t\n```', type: 'text' }, type: 'content' }],
    rawOutput: '1\t# notes\n2\tnothing to see\n3\t',
    _meta: { claudeCode: { toolName: 'Read', parentToolUseId: 'toolu_fake0002' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0003',
    _meta: {
      claudeCode: {
        toolResponse: {
          status: 'completed',
          prompt: 'Review the change for performance.',
          agentId: 'a8531fc48c96b3de1',
          agentType: 'general-purpose',
          handback: 'withheld',
          harnessNoteCount: 1,
          harnessTailCount: 0,
          harnessSectionHash: '142fe8e7752f1378',
          content: [
            { type: 'text', text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …' },
          ],
          resolvedModel: 'claude-opus-5-5',
          totalDurationMs: 985,
          totalTokens: 150,
          totalToolUseCount: 0,
          canContinueAgent: true,
        },
        toolName: 'Agent',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0003',
    status: 'completed',
    content: [
      {
        content: {
          text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …',
          type: 'text',
        },
        type: 'content',
      },
    ],
    rawOutput: [
      { type: 'text', text: '  The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent tex…' },
    ],
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0015',
    _meta: {
      claudeCode: {
        toolResponse: {
          status: 'completed',
          prompt: 'Check one detail and answer in one line.',
          agentId: 'a112bfc785a85fe3c',
          agentType: 'general-purpose',
          handback: 'withheld',
          harnessNoteCount: 1,
          harnessTailCount: 0,
          harnessSectionHash: '142fe8e7752f1378',
          content: [
            { type: 'text', text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …' },
          ],
          resolvedModel: 'claude-opus-5-5',
          totalDurationMs: 992,
          totalTokens: 150,
          totalToolUseCount: 0,
          canContinueAgent: true,
        },
        toolName: 'Agent',
        parentToolUseId: 'toolu_fake0004',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0015',
    status: 'completed',
    content: [
      {
        content: {
          text: '  The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent tex…',
          type: 'text',
        },
        type: 'content',
      },
    ],
    rawOutput: [
      { type: 'text', text: '  The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent tex…' },
    ],
    _meta: { claudeCode: { toolName: 'Agent', parentToolUseId: 'toolu_fake0004' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0002',
    _meta: {
      claudeCode: {
        toolResponse: {
          status: 'completed',
          prompt: 'READ-FIRST Review the change for security issues.',
          agentId: 'af026d3474225c431',
          agentType: 'general-purpose',
          handback: 'withheld',
          toolsUsed: ['Read'],
          harnessNoteCount: 1,
          harnessTailCount: 0,
          harnessSectionHash: '142fe8e7752f1378',
          content: [
            { type: 'text', text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …' },
          ],
          resolvedModel: 'claude-opus-5-5',
          totalDurationMs: 1907,
          totalTokens: 150,
          totalToolUseCount: 1,
          toolStats: { readCount: 1, searchCount: 0, bashCount: 0, editFileCount: 0, linesAdded: 0, linesRemoved: 0, otherToolCount: 0 },
          canContinueAgent: true,
        },
        toolName: 'Agent',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0002',
    status: 'completed',
    content: [
      {
        content: {
          text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …',
          type: 'text',
        },
        type: 'content',
      },
    ],
    rawOutput: [
      { type: 'text', text: '  The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent tex…' },
    ],
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0004',
    _meta: {
      claudeCode: {
        toolResponse: {
          status: 'completed',
          prompt: 'NESTED-LAUNCH Review the change for style.',
          agentId: 'ab11a5cf853138d9b',
          agentType: 'general-purpose',
          handback: 'withheld',
          toolsUsed: ['Agent'],
          harnessNoteCount: 1,
          harnessTailCount: 0,
          harnessSectionHash: '142fe8e7752f1378',
          content: [
            { type: 'text', text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …' },
          ],
          resolvedModel: 'claude-opus-5-5',
          totalDurationMs: 1822,
          totalTokens: 150,
          totalToolUseCount: 1,
          canContinueAgent: true,
        },
        toolName: 'Agent',
      },
    },
    sessionUpdate: 'tool_call_update',
  },
  {
    toolCallId: 'toolu_fake0004',
    status: 'completed',
    content: [
      {
        content: {
          text: 'The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent text …',
          type: 'text',
        },
        type: 'content',
      },
    ],
    rawOutput: [
      { type: 'text', text: '  The subagent ended without delivering a report through SubagentHandback, so no report was delivered. Its unsent tex…' },
    ],
    _meta: { claudeCode: { toolName: 'Agent' } },
    sessionUpdate: 'tool_call_update',
  },
  { content: { text: 'All reviews are in. Done.', type: 'text' }, messageId: 'msg_37', sessionUpdate: 'agent_message_chunk' },
];
