// What the demo's seeded history reproduces: the spec's "Sampled input shapes" and "Other
// measured facts", as data. demo-history.ts lays it out as host messages;
// test/demo-report.test.ts checks what the backfill recovered from them against these figures.

export type SampledStatus = 'async_launched' | 'completed' | 'started' | 'absent';

export const SAMPLE = {
  /** 42 cards, one session each; 38 of them fanned out. */
  cards: 42,
  sessionsWithSubagents: 38,
  /** Fan-out k → number of turns: 127 turns, 253 subagents. */
  fanOut: { 1: 65, 2: 12, 3: 42, 4: 5, 5: 2, 8: 1 } as Readonly<Record<number, number>>,
  /** Population by terminal status (n = 253). The 5 `started` are OpenCode's, in one 3-way and one 2-way turn. */
  statuses: { async_launched: 190, completed: 57, started: 5, absent: 1 } as Readonly<Record<SampledStatus, number>>,
  completedWithModel: 49,
  withoutSubagentType: 3,
  /** The largest total_tokens observed. */
  largestTotalTokens: 275_717,
  /** The last subagent message observed: 2026-08-12T13:24:58.906211Z (the history ends there). */
  lastLaunchAtNs: BigInt(Date.UTC(2026, 7, 12, 13, 24, 58, 906)) * 1_000_000n + 211_000n,
} as const;

/** metadata.status: the launching tool call's ACP status, which decides settlement (AC-11). */
export const TOOL_STATUS: Readonly<Record<SampledStatus, string>> = {
  async_launched: 'completed',
  completed: 'completed',
  started: 'in_progress',
  absent: 'pending',
};

export const MODELS = ['claude-opus-5[1m]', 'claude-sonnet-5', 'claude-opus-5[1m]', 'claude-haiku-4-5'];
export const REVIEWERS = ['security-reviewer', 'code-reviewer', 'performance-reviewer', 'test-reviewer'];
export const HELPERS = ['general-purpose', 'Explore', 'test-runner', 'docs-writer'];
export const ASKS = [
  'Fix the flaky session-resume test',
  'Add pagination to the task list',
  'Port the cost report to the new schema',
  'Tighten the websocket auth scoper',
];

/** The ordinary tool calls around the launches (normalized as the host stores them). */
export const ORDINARY_CALLS: readonly { content: string; normalized: object }[] = [
  { content: 'read_file internal/orchestrator/event_handlers_streaming.go', normalized: { kind: 'read_file', read_file: { lines: 412 } } },
  { content: 'search recordSubagentContext', normalized: { kind: 'search', search: { matches: 7 } } },
  { content: 'go test ./internal/...', normalized: { kind: 'shell', shell: { exit_code: 0 } } },
  { content: 'edit apps/web/src/components/subagent-card.tsx', normalized: { kind: 'edit', edit: { additions: 24, deletions: 9 } } },
];

/** Mentions subagent_task in its text but is a shell call: a naive text match is not a subagent. */
export const TRAP_CALL = {
  content: 'rg -n "subagent_task" internal/',
  normalized: { kind: 'shell', shell: { command: 'rg -n "subagent_task" internal/', output: 'internal/orchestrator/subagent.go:41:  Kind: "subagent_task",' } },
};

/** Legacy rows whose metadata is unusable, at these positions among the ordinary tool calls. */
export const MALFORMED_METADATA: readonly { at: number; value: string }[] = [
  { at: 40, value: '' },
  { at: 160, value: 'null' },
  { at: 280, value: '{broken' },
];
export const TRAP_AT = 100;
