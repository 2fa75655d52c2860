// The demo's seeded history: a Kandev-shaped message table reproducing the spec's
// "Sampled input shapes" — 253 subagent launches across 38 sessions and 127 turns, statuses
// 190 async_launched / 57 completed / 5 started / 1 absent with the per-status field
// presence of the sampled table, fan-out 1→65, 2→12, 3→42, 4→5, 5→2, 8→1 turns, one nested
// subagent, three without subagent_type — surrounded by ordinary chat and tool-call messages
// and a few malformed metadata rows. Pure data: nothing here touches a database.
import type { HostMessage, HostSession } from './host-rows.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

/** A session, and which agent ran it (the live stream picks Claude sessions). */
export interface DemoSession extends HostSession {
  agent: 'claude' | 'opencode';
}

export type SampledStatus = 'async_launched' | 'completed' | 'started' | 'absent';

export interface DemoHistory {
  sessions: DemoSession[];
  messages: HostMessage[];
  /** Sessions with at least one subagent launch, in id order. */
  fannedOutSessionIds: string[];
  /** What was built in, for the population summary the demo prints. */
  summary: {
    cards: number;
    sessionsWithSubagents: number;
    subagentTurns: number;
    subagentMessages: number;
    statuses: Record<SampledStatus, number>;
    malformedMetadata: number;
  };
}

/** Spec § Other measured facts: fan-out k → number of turns. */
export const SAMPLED_FAN_OUT: ReadonlyArray<readonly [fanOut: number, turns: number]> = [
  [1, 65],
  [2, 12],
  [3, 42],
  [4, 5],
  [5, 2],
  [8, 1],
];

/** Spec § Population by terminal status (n = 253). */
export const SAMPLED_STATUSES: Readonly<Record<SampledStatus, number>> = { async_launched: 190, completed: 57, started: 5, absent: 1 };
const COMPLETED_WITHOUT_MODEL = 57 - 49;
const WITHOUT_SUBAGENT_TYPE = 3;
const CARDS = 42; // 38 cards that fanned out, 4 that never did
const SESSIONS_WITH_SUBAGENTS = 38;

/** Spec § Other measured facts: the observed window of subagent messages. */
const NS_PER_MS = 1_000_000n;
const FIRST_SUBAGENT_AT = BigInt(Date.UTC(2026, 7, 3, 15, 32, 20)) * NS_PER_MS + 184_467_000n;
const LAST_SUBAGENT_AT = BigInt(Date.UTC(2026, 7, 12, 13, 24, 58)) * NS_PER_MS + 906_211_000n;
/** Spec § Other measured facts: the largest total_tokens observed. */
const LARGEST_TOTAL_TOKENS = 275_717;
const NS_PER_S = 1_000_000_000n;
const SECOND = NS_PER_S;
const MINUTE = 60n * SECOND;

const MODELS = ['claude-opus-5[1m]', 'claude-sonnet-5', 'claude-opus-5[1m]', 'claude-haiku-4-5'];
const REVIEWERS = ['security-reviewer', 'code-reviewer', 'performance-reviewer', 'test-reviewer'];
const HELPERS = ['general-purpose', 'Explore', 'test-runner', 'docs-writer', 'migration-planner'];
const FILES = [
  'internal/orchestrator/event_handlers_streaming.go',
  'internal/task/repository/sqlite/base_schema.go',
  'apps/web/src/components/subagent-card.tsx',
  'internal/agentctl/server/adapter/transport/acp/subagent.go',
  'README.md',
  'internal/task/service/service_messages.go',
];
const ASKS = [
  'Fix the flaky session-resume test',
  'Add pagination to the task list',
  'Review the diff before merge',
  'Port the cost report to the new schema',
  'Investigate the slow boot on large stores',
  'Tighten the websocket auth scoper',
];

interface SubagentSpec {
  toolCallId: string;
  status: SampledStatus;
  agent: 'claude' | 'opencode';
  subagentType: string | null;
  withModel: boolean;
  parentToolCallId: string | null;
}

interface TurnSpec {
  fanOut: number; // 0 for a turn without subagents
}

function claudeToolCallId(rng: SeededRandom): string {
  return `toolu_01${rng.base62(22)}`;
}

/** The subagent_task payload as the message writer stores it, per the sampled field presence. */
function subagentPayload(rng: SeededRandom, s: SubagentSpec, description: string): Record<string, unknown> {
  const base: Record<string, unknown> = { description, prompt: `${description}. Report findings as a list.` };
  if (s.subagentType !== null) base.subagent_type = s.subagentType;
  switch (s.status) {
    case 'async_launched':
      // Claude's run_in_background dispatch: identity and model, usage reported as 0 (AC-7a).
      return {
        ...base,
        status: 'async_launched',
        agent_id: `agent_${rng.hex(12)}`,
        model: rng.pick(MODELS),
        is_async: true,
        output_file: `/tmp/claude/tasks/${rng.hex(8)}.output`,
        total_tokens: 0,
        duration_ms: 0,
      };
    case 'completed': {
      const payload: Record<string, unknown> = {
        ...base,
        status: 'completed',
        agent_id: `agent_${rng.hex(12)}`,
        total_tokens: Math.round(6_000 * Math.exp(rng.next() * 3.2)),
        tool_use_count: rng.int(1, 48),
        duration_ms: rng.int(8_000, 900_000),
        is_async: false,
        result_text: 'No blocking issues; two suggestions inline.',
      };
      if (s.withModel) payload.model = rng.pick(MODELS);
      return payload;
    }
    case 'started':
      // OpenCode: only the child ACP session is known while the subagent runs.
      return { ...base, status: 'started', child_session_id: `ses_${rng.base62(24)}` };
    case 'absent':
      return base;
  }
}

/** metadata.status: the launching tool call's ACP status, which decides settlement (AC-11). */
const TOOL_STATUS: Record<SampledStatus, string> = { async_launched: 'completed', completed: 'completed', started: 'in_progress', absent: 'pending' };

function ordinaryToolCall(rng: SeededRandom): { content: string; metadata: Record<string, unknown> } {
  const kind = rng.pick(['read_file', 'search', 'shell', 'edit', 'read_file']);
  const file = rng.pick(FILES);
  const detail: Record<string, unknown> =
    kind === 'read_file'
      ? { path: file, lines: rng.int(40, 900) }
      : kind === 'search'
        ? { pattern: rng.pick(['recordSubagentContext', 'ToolUseCount', 'isTerminalToolStatus']), matches: rng.int(0, 30) }
        : kind === 'shell'
          ? { command: rng.pick(['go test ./internal/...', 'make lint', 'git diff --stat']), exit_code: rng.int(0, 1) }
          : { path: file, additions: rng.int(1, 80), deletions: rng.int(0, 40) };
  return { content: `${kind} ${file}`, metadata: { tool_call_id: `toolu_01${rng.base62(22)}`, status: 'completed', normalized: { kind, [kind]: detail } } };
}

/** Spreads the 127 sampled fan-out turns over the 38 sessions that fanned out. */
function assignTurns(rng: SeededRandom, claude: string[], opencode: [string, string]): Map<string, number[]> {
  const fanOuts = SAMPLED_FAN_OUT.flatMap(([k, n]) => Array<number>(n).fill(k));
  const take = (k: number) => fanOuts.splice(fanOuts.indexOf(k), 1)[0];
  const bySession = new Map<string, number[]>();
  // The 5 `started` rows are OpenCode's, all in two sessions: one 3-way and one 2-way turn.
  bySession.set(opencode[0], [take(3)]);
  bySession.set(opencode[1], [take(2)]);
  const rest = rng.shuffle(fanOuts);
  claude.forEach((id, i) => bySession.set(id, [rest[i]]));
  for (const k of rest.slice(claude.length)) bySession.get(rng.pick(claude))!.push(k);
  return bySession;
}

export function buildDemoHistory(seed = 20260812): DemoHistory {
  const rng = seededRandom(seed);
  const pad = (n: number) => String(n).padStart(2, '0');
  const sessionIds = Array.from({ length: CARDS }, (_, i) => `ses-${pad(i + 1)}`);
  const fannedOut = rng.shuffle(sessionIds).slice(0, SESSIONS_WITH_SUBAGENTS).sort();
  const opencode: [string, string] = [fannedOut[4], fannedOut[17]];
  const claude = fannedOut.filter((id) => !opencode.includes(id));
  const turnsBySession = assignTurns(rng, claude, opencode);

  // Claude statuses, shuffled over the 248 Claude subagents in session order.
  const claudeCount = [...turnsBySession]
    .filter(([id]) => !opencode.includes(id))
    .flatMap(([, ks]) => ks)
    .reduce((a, b) => a + b, 0);
  const statuses = rng.shuffle<SampledStatus>([
    ...Array<SampledStatus>(SAMPLED_STATUSES.async_launched).fill('async_launched'),
    ...Array<SampledStatus>(SAMPLED_STATUSES.completed).fill('completed'),
    ...Array<SampledStatus>(SAMPLED_STATUSES.absent).fill('absent'),
  ]);
  if (statuses.length !== claudeCount) throw new Error(`demo history: ${claudeCount} Claude subagents for ${statuses.length} statuses`);
  const untyped = new Set(rng.shuffle(Array.from({ length: claudeCount }, (_, i) => i)).slice(0, WITHOUT_SUBAGENT_TYPE));
  let claudeIndex = 0;
  let completedSeen = 0;

  const sessions: DemoSession[] = [];
  const messages: HostMessage[] = [];
  let messageNo = 0;
  const nextMessageId = () => `msg-${String(++messageNo).padStart(4, '0')}`;
  // Legacy rows the host wrote with no usable metadata; each lands on the first ordinary
  // message at or after its position, never on a subagent launch.
  const malformed = [
    { at: rng.int(100, 400), value: '' },
    { at: rng.int(500, 900), value: 'null' },
    { at: rng.int(1000, 1400), value: '{broken' },
  ];
  const malformedCount = malformed.length;
  let trapAt = rng.int(200, 1200); // the first ordinary tool call from here on mentions subagent_task
  let subagentMessages = 0;

  let clock = 0n; // relative time; mapped onto the sampled window at the end
  const launchTimes: bigint[] = [];
  for (const [index, sessionId] of sessionIds.entries()) {
    const taskId = `card-${pad(index + 1)}`;
    const agent = opencode.includes(sessionId) ? 'opencode' : 'claude';
    clock += BigInt(rng.int(20, 300)) * MINUTE;
    sessions.push({ id: sessionId, taskId, agent, createdAtNs: clock });
    const turns: TurnSpec[] = rng.shuffle([
      ...(turnsBySession.get(sessionId) ?? []).map((fanOut) => ({ fanOut })),
      ...Array.from({ length: rng.int(1, 4) }, () => ({ fanOut: 0 })),
    ]);
    turns.forEach((turn, t) => {
      const turnId = `${sessionId}-turn-${pad(t + 1)}`;
      const push = (m: Omit<HostMessage, 'id' | 'sessionId' | 'taskId' | 'turnId'>, launch = false) => {
        const id = nextMessageId();
        let metadata = m.metadata;
        if (launch) subagentMessages++;
        else if (malformed.length > 0 && messageNo >= malformed[0].at) metadata = malformed.shift()!.value;
        messages.push({ ...m, id, sessionId, taskId, turnId, metadata });
      };
      // Host timestamps carry microseconds; steps are tenths of a second plus a jitter.
      const step = (lo: number, hi: number) => (clock += BigInt(rng.int(lo, hi)) * 100n * NS_PER_MS + BigInt(rng.int(0, 99_999)) * 1000n);
      clock += BigInt(rng.int(2, 40)) * MINUTE;
      push({ authorType: 'user', type: 'message', content: rng.pick(ASKS), metadata: null, createdAtNs: clock, updatedAtNs: clock });
      step(20, 90);
      push({
        authorType: 'agent',
        type: 'message',
        content: 'Looking at the code paths involved first.',
        metadata: null,
        createdAtNs: clock,
        updatedAtNs: clock,
      });
      for (let i = rng.int(turn.fanOut ? 0 : 1, 4); i > 0; i--) {
        step(10, 120);
        if (messageNo + 1 >= trapAt) {
          trapAt = Number.POSITIVE_INFINITY;
          // Mentions subagent_task in its text but is a shell call: a naive text match is not a subagent.
          const metadata = {
            tool_call_id: `toolu_01${rng.base62(22)}`,
            status: 'completed',
            normalized: {
              kind: 'shell',
              shell: { command: 'rg -n "subagent_task" internal/', output: 'internal/orchestrator/subagent.go:41:  Kind: "subagent_task",' },
            },
          };
          push({
            authorType: 'agent',
            type: 'tool_call',
            content: 'rg -n "subagent_task" internal/',
            metadata: JSON.stringify(metadata),
            createdAtNs: clock,
            updatedAtNs: clock + SECOND,
          });
          continue;
        }
        const call = ordinaryToolCall(rng);
        push({
          authorType: 'agent',
          type: 'tool_call',
          content: call.content,
          metadata: JSON.stringify(call.metadata),
          createdAtNs: clock,
          updatedAtNs: clock + BigInt(rng.int(1, 20)) * SECOND,
        });
      }
      // The fan-out: parallel launches a fraction of a second apart.
      const launched: SubagentSpec[] = [];
      for (let k = 0; k < turn.fanOut; k++) {
        let spec: SubagentSpec;
        if (agent === 'opencode') {
          spec = { toolCallId: `call_${rng.base62(24)}`, status: 'started', agent, subagentType: rng.pick(HELPERS), withModel: false, parentToolCallId: null };
        } else {
          const status = statuses[claudeIndex];
          if (status === 'completed') completedSeen++;
          spec = {
            toolCallId: claudeToolCallId(rng),
            status,
            agent,
            subagentType: untyped.has(claudeIndex) ? null : turn.fanOut >= 3 ? REVIEWERS[k % REVIEWERS.length] : rng.pick(HELPERS),
            withModel: status !== 'completed' || completedSeen > COMPLETED_WITHOUT_MODEL,
            // The one nested subagent: the widest turn's last launch was spawned by its first.
            parentToolCallId: turn.fanOut === 8 && k === 7 ? launched[0].toolCallId : null,
          };
          claudeIndex++;
        }
        launched.push(spec);
        step(1, 9);
        launchTimes.push(clock);
        const description = spec.subagentType?.endsWith('reviewer') ? `Review the change as ${spec.subagentType}` : rng.pick(ASKS);
        const payload = subagentPayload(rng, spec, description);
        if (spec.status === 'completed' && completedSeen === 30) payload.total_tokens = LARGEST_TOTAL_TOKENS;
        const metadata = {
          tool_call_id: spec.toolCallId,
          status: TOOL_STATUS[spec.status],
          ...(spec.parentToolCallId ? { parent_tool_call_id: spec.parentToolCallId } : {}),
          title: 'Task',
          normalized: { kind: 'subagent_task', subagent_task: payload },
        };
        const lastUpdate = spec.status === 'completed' ? BigInt(payload.duration_ms as number) * NS_PER_MS : BigInt(rng.int(1, 5)) * SECOND;
        push(
          {
            authorType: 'agent',
            type: 'tool_call',
            content: description,
            metadata: JSON.stringify(metadata),
            createdAtNs: clock,
            // A launch that never progressed was never updated; the host leaves updated_at NULL.
            updatedAtNs: spec.status === 'absent' ? null : clock + lastUpdate,
          },
          true,
        );
      }
      step(30, 600);
      push({
        authorType: 'agent',
        type: 'message',
        content: turn.fanOut ? `Collected results from ${turn.fanOut} subagent(s).` : 'Done; the change is ready for review.',
        metadata: null,
        createdAtNs: clock,
        updatedAtNs: clock,
      });
    });
  }

  if (malformed.length > 0) throw new Error('demo history: a malformed-metadata row was not placed');
  mapOntoSampledWindow(messages, sessions, launchTimes);
  return {
    sessions,
    messages,
    fannedOutSessionIds: fannedOut,
    summary: {
      cards: CARDS,
      sessionsWithSubagents: SESSIONS_WITH_SUBAGENTS,
      subagentTurns: SAMPLED_FAN_OUT.reduce((n, [, turns]) => n + turns, 0),
      subagentMessages,
      statuses: { ...SAMPLED_STATUSES },
      malformedMetadata: malformedCount,
    },
  };
}

/**
 * Maps relative times affinely onto real instants so the first and last subagent launch fall
 * exactly on the spec's observed window, truncated to microseconds like the host's column.
 */
function mapOntoSampledWindow(messages: HostMessage[], sessions: DemoSession[], launches: bigint[]): void {
  const lo = launches.reduce((a, b) => (b < a ? b : a));
  const hi = launches.reduce((a, b) => (b > a ? b : a));
  const from = FIRST_SUBAGENT_AT;
  const span = LAST_SUBAGENT_AT - from;
  const map = (t: bigint) => {
    const ns = from + ((t - lo) * span) / (hi - lo);
    return ns - (((ns % 1000n) + 1000n) % 1000n);
  };
  for (const m of messages) {
    m.createdAtNs = map(m.createdAtNs);
    if (m.updatedAtNs !== null) m.updatedAtNs = map(m.updatedAtNs);
  }
  for (const s of sessions) s.createdAtNs = map(s.createdAtNs);
}
