// The demo's seeded history: the spec's sampled population (sampled-population.ts) laid out as
// a Kandev host's message table. Each session is a few turns; a turn is a user ask, the agent's
// reply, a few ordinary tool calls, the turn's parallel subagent launches (the sampled fan-out,
// statuses and per-status fields), and a closing message. Among the ordinary tool calls, three
// carry malformed metadata and one mentions subagent_task without being one. Seeded, so every
// run and both dialects get the same rows. Pure data: nothing here touches a database.
import type { HostMessage, HostSession } from './host-rows.js';
import type { LiveSessions } from './live-stream.js';
import * as S from './sampled-population.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

export interface DemoHistory {
  sessions: HostSession[];
  messages: HostMessage[];
  /** The sessions the live turns land in. */
  live: LiveSessions;
  /** What was built in, for the population summary the demo prints. */
  summary: {
    cards: number;
    sessionsWithSubagents: number;
    subagentTurns: number;
    subagentMessages: number;
    statuses: Record<S.SampledStatus, number>;
    malformedMetadata: number;
  };
}

const MS = 1_000_000n;
const SECOND = 1000n * MS;
const MINUTE = 60n * SECOND;
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The subagent_task payload as the message writer stores it: the fields the sample had for that
 * status. `nthCompleted` counts the completed launches so far: the first 8 report no model, the
 * 30th reports the sample's largest total_tokens.
 */
function payloadOf(rng: SeededRandom, status: S.SampledStatus, base: Record<string, unknown>, nthCompleted: number): Record<string, unknown> {
  const agentId = `agent_${rng.hex(12)}`;
  if (status === 'async_launched') {
    // Claude's run_in_background dispatch: identity and model, usage reported as 0 (AC-7a).
    const output = `/tmp/claude/tasks/${rng.hex(8)}.output`;
    return { ...base, status, agent_id: agentId, model: rng.pick(S.MODELS), is_async: true, output_file: output, total_tokens: 0, duration_ms: 0 };
  }
  if (status === 'started') return { ...base, status, child_session_id: `ses_${rng.base62(24)}` }; // OpenCode: only the child session, while it runs
  if (status === 'absent') return base;
  const tokens = nthCompleted === 30 ? S.SAMPLE.largestTotalTokens : Math.round(6_000 * Math.exp(rng.next() * 3.2));
  const usage = { total_tokens: tokens, tool_use_count: rng.int(1, 48), duration_ms: rng.int(8_000, 900_000), is_async: false };
  const model = nthCompleted > S.SAMPLE.statuses.completed - S.SAMPLE.completedWithModel ? { model: rng.pick(S.MODELS) } : {};
  return { ...base, status, agent_id: agentId, ...usage, ...model, result_text: 'No blocking issues; two suggestions inline.' };
}

/** Each session's turns as fan-outs (0: a turn without subagents): the sampled turns spread over the sessions that fanned out. */
function turnsPerSession(rng: SeededRandom, sessions: string[], opencode: readonly string[]): Map<string, number[]> {
  const fanOuts = Object.entries(S.SAMPLE.fanOut).flatMap(([k, n]) => Array<number>(n).fill(Number(k)));
  const take = (k: number) => fanOuts.splice(fanOuts.indexOf(k), 1)[0];
  const turns = new Map<string, number[]>(sessions.map((id) => [id, Array<number>(rng.int(1, 4)).fill(0)]));
  turns.get(opencode[0])!.push(take(3));
  turns.get(opencode[1])!.push(take(2));
  const claude = sessions.slice(0, S.SAMPLE.sessionsWithSubagents).filter((id) => !opencode.includes(id));
  rng.shuffle(fanOuts).forEach((k, i) => turns.get(i < claude.length ? claude[i] : rng.pick(claude))!.push(k));
  return new Map([...turns].map(([id, ks]) => [id, rng.shuffle(ks)]));
}

export function buildDemoHistory(seed = 20260812): DemoHistory {
  const rng = seededRandom(seed);
  const ids = Array.from({ length: S.SAMPLE.cards }, (_, i) => `ses-${pad(i + 1)}`); // the first 38 fan out
  const opencode = [ids[4], ids[17]];
  const turnsOf = turnsPerSession(rng, ids, opencode);
  // Every Claude launch (all but OpenCode's 5 `started`) takes the next of these statuses.
  const claudeStatuses = (['async_launched', 'completed', 'absent'] as const).flatMap((status) =>
    Array<S.SampledStatus>(S.SAMPLE.statuses[status]).fill(status),
  );
  const statuses = rng.shuffle(claudeStatuses);
  const untyped = new Set(rng.shuffle([...statuses.keys()]).slice(0, S.SAMPLE.withoutSubagentType));
  let claudeIndex = 0;
  let completedSeen = 0;
  let ordinaryCalls = 0;

  const sessions: HostSession[] = [];
  const messages: HostMessage[] = [];
  const launchTimes: bigint[] = [];
  let clock = 0n; // relative; shifted so the last launch lands on the sampled one
  for (const [index, sessionId] of ids.entries()) {
    const taskId = `card-${pad(index + 1)}`;
    clock += BigInt(rng.int(20, 300)) * MINUTE;
    sessions.push({ id: sessionId, taskId, createdAtNs: clock });
    for (const [t, fanOut] of turnsOf.get(sessionId)!.entries()) {
      const turnId = `${sessionId}-turn-${pad(t + 1)}`;
      /** A chat message (no metadata) or a tool call; only the turn's ask is the user's. */
      const push = (content: string, metadata: string | null, updatedAtNs: bigint | null = clock, authorType: HostMessage['authorType'] = 'agent') => {
        const id = `msg-${String(messages.length + 1).padStart(4, '0')}`;
        const type = metadata === null ? 'message' : 'tool_call';
        messages.push({ id, sessionId, taskId, turnId, authorType, type, content, metadata, createdAtNs: clock, updatedAtNs });
      };
      // Host timestamps carry microseconds: steps of tenths of a second plus a jitter.
      const step = (lo: number, hi: number) => (clock += BigInt(rng.int(lo, hi)) * 100n * MS + BigInt(rng.int(0, 99_999)) * 1000n);
      clock += BigInt(rng.int(2, 40)) * MINUTE;
      push(rng.pick(S.ASKS), null, clock, 'user');
      step(20, 90);
      push('Looking at the code paths involved first.', null);
      for (let i = rng.int(fanOut ? 0 : 1, 4); i > 0; i--, ordinaryCalls++) {
        step(10, 120);
        const call = ordinaryCalls === S.TRAP_AT ? S.TRAP_CALL : rng.pick(S.ORDINARY_CALLS);
        const malformed = S.MALFORMED_METADATA.find((m) => m.at === ordinaryCalls);
        const metadata = malformed
          ? malformed.value
          : JSON.stringify({ tool_call_id: `toolu_01${rng.base62(22)}`, status: 'completed', normalized: call.normalized });
        push(call.content, metadata, clock + BigInt(rng.int(1, 20)) * SECOND);
      }
      const launched: string[] = []; // the fan-out: parallel launches a fraction of a second apart
      for (let k = 0; k < fanOut; k++) {
        const isOpenCode = opencode.includes(sessionId);
        const status = isOpenCode ? 'started' : statuses[claudeIndex];
        const reviewer = fanOut >= 3 && !isOpenCode; // a wide Claude fan-out is a review
        const subagentType = !isOpenCode && untyped.has(claudeIndex) ? null : reviewer ? S.REVIEWERS[k % S.REVIEWERS.length] : rng.pick(S.HELPERS);
        if (!isOpenCode) claudeIndex++;
        if (status === 'completed') completedSeen++;
        const description = subagentType?.endsWith('reviewer') ? `Review the change as ${subagentType}` : rng.pick(S.ASKS);
        const base = { description, prompt: `${description}. Report findings as a list.`, ...(subagentType === null ? {} : { subagent_type: subagentType }) };
        const toolCallId = isOpenCode ? `call_${rng.base62(24)}` : `toolu_01${rng.base62(22)}`;
        // The one nested subagent: the widest turn's last launch was spawned by its first.
        const parentToolCallId = fanOut === 8 && k === 7 ? launched[0] : null;
        const payload = payloadOf(rng, status, base, completedSeen);
        launched.push(toolCallId);
        step(1, 9);
        launchTimes.push(clock);
        const metadata = {
          tool_call_id: toolCallId,
          status: S.TOOL_STATUS[status],
          ...(parentToolCallId ? { parent_tool_call_id: parentToolCallId } : {}),
          title: 'Task',
          normalized: { kind: 'subagent_task', subagent_task: payload },
        };
        // A launch that never progressed was never updated: the host leaves updated_at NULL.
        const lastUpdate = status === 'completed' ? BigInt(payload.duration_ms as number) * MS : BigInt(rng.int(1, 5)) * SECOND;
        push(description, JSON.stringify(metadata), status === 'absent' ? null : clock + lastUpdate);
      }
      step(30, 600);
      push(fanOut ? `Collected results from ${fanOut} subagent(s).` : 'Done; the change is ready for review.', null);
    }
  }
  if (claudeIndex !== statuses.length) throw new Error(`demo history: ${claudeIndex} Claude launches for ${statuses.length} statuses`);

  const shift = S.SAMPLE.lastLaunchAtNs - launchTimes.reduce((a, b) => (b > a ? b : a));
  for (const row of [...sessions, ...messages]) row.createdAtNs += shift;
  for (const m of messages) if (m.updatedAtNs !== null) m.updatedAtNs += shift;
  const sessionOf = (id: string) => sessions.find((s) => s.id === id)!;
  return {
    sessions,
    messages,
    live: { claude: sessions[0], opencode: sessionOf(opencode[0]), withoutTask: sessions.at(-1)! },
    summary: {
      cards: S.SAMPLE.cards,
      sessionsWithSubagents: S.SAMPLE.sessionsWithSubagents,
      subagentTurns: Object.values(S.SAMPLE.fanOut).reduce((a, b) => a + b, 0),
      subagentMessages: launchTimes.length,
      statuses: { ...S.SAMPLE.statuses },
      malformedMetadata: S.MALFORMED_METADATA.length,
    },
  };
}
