// Synthetic Kandev history for the benchmarks' stores (scripts/lib/synthetic-store.ts writes
// it): the store profiles, and a deterministic (seeded) stream of host sessions and messages —
// chat messages, tool calls with JSON metadata, a given number of subagent launches, a few
// legacy rows with malformed metadata and a few that merely mention "subagent_task".
import { type HostMessage, type HostSession } from '../../../src/demo/host-rows.js';
import { seededRandom, type SeededRandom } from '../../../src/demo/seeded-random.js';

/** Bump when the generated content changes: cached stores of another version are rebuilt. */
export const GENERATOR_VERSION = 'synthetic-store-v2';

export interface StoreProfile {
  name: string;
  description: string;
  messages: number;
  subagentMessages: number;
  sessions: number;
  /** Days the messages span, ending at END_OF_HISTORY; a store grows at a steady rate. */
  days: number;
  seed: number;
}

const RATE_PER_DAY = 2_000; // messages per day: the reference store's 240k span four months

function profile(name: string, description: string, messages: number, subagentMessages: number, seed: number): StoreProfile {
  return { name, description, messages, subagentMessages, sessions: Math.ceil(messages / 120), days: messages / RATE_PER_DAY, seed };
}

export const STORE_PROFILES = {
  reference: profile('reference', '~330 MB reference store: ~250 subagent messages among ~240k', 240_000, 253, 1),
  'sparse-1m': profile('sparse-1m', '1M messages, 0.02% subagent messages', 1_000_000, 200, 2),
  'dense-1m': profile('dense-1m', '1M messages, 5% subagent messages', 1_000_000, 50_000, 3),
  // The scaling row (issue 20): the sparse shape at a quarter and four times sparse-1m.
  'sparse-250k': profile('sparse-250k', '250k messages, 0.02% subagent messages', 250_000, 50, 7),
  'sparse-4m': profile('sparse-4m', '4M messages, 0.02% subagent messages', 4_000_000, 800, 8),
  'reference-quick': profile('reference-quick', 'quick: 24k messages, 25 subagent messages', 24_000, 25, 4),
  'sparse-quick': profile('sparse-quick', 'quick: 100k messages, 0.02% subagent messages', 100_000, 20, 5),
  'dense-quick': profile('dense-quick', 'quick: 100k messages, 5% subagent messages', 100_000, 5_000, 6),
} as const satisfies Record<string, StoreProfile>;

export type StoreProfileName = keyof typeof STORE_PROFILES;

/** The newest message's instant in every store. */
const END_OF_HISTORY_NS = BigInt(Date.UTC(2026, 7, 12, 13, 30, 0)) * 1_000_000n;
const NS_PER_DAY = 86_400_000_000_000n;

// ---------------------------------------------------------------- content

const WORDS =
  'the session turn agent review change file test diff build error cache token model context subagent schema index query migration backfill writer health commit branch deploy config handler stream frame payload result status update retry timeout parse render card step cost report'.split(
    ' ',
  );

/** A long seeded text; messages take slices of it, so generating 1M of them stays cheap. */
function textPool(rng: SeededRandom): string {
  const parts: string[] = [];
  let length = 0;
  while (length < 1 << 20) {
    const w = rng.pick(WORDS);
    parts.push(w);
    length += w.length + 1;
  }
  return parts.join(' ');
}

function uuid(rng: SeededRandom): string {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const MODELS = ['claude-opus-5[1m]', 'claude-sonnet-5', 'claude-haiku-4-5'];
const TOOL_KINDS = ['read_file', 'search', 'shell', 'edit', 'read_file', 'shell'];

/** Deterministic sessions and messages for a profile, in created_at order. */
export function* syntheticHistory(p: StoreProfile): Generator<{ session?: HostSession; message?: HostMessage }> {
  const rng = seededRandom(p.seed * 7919 + 17);
  const text = textPool(rng);
  const slice = (min: number, max: number) => {
    const len = rng.int(min, max);
    const at = rng.int(0, text.length - len - 1);
    return text.slice(at, at + len);
  };
  const start = END_OF_HISTORY_NS - BigInt(Math.round(p.days * 1e6)) * (NS_PER_DAY / 1_000_000n);
  const step = (END_OF_HISTORY_NS - start) / BigInt(p.messages);
  const perSession = p.messages / p.sessions;

  const sessions: (HostSession & { messages: number })[] = [];
  let subagentIndex = 0;
  let nextSubagentAt = Math.floor(rng.next() * (p.messages / p.subagentMessages));

  for (let i = 0; i < p.messages; i++) {
    const createdAtNs = start + BigInt(i) * step + BigInt(rng.int(0, Number(step / 1000n) - 1)) * 1000n;
    // Sessions open in time order; up to four are active at once.
    const newest = Math.min(p.sessions - 1, Math.floor(i / perSession));
    while (sessions.length <= newest) {
      const s = { id: uuid(rng), taskId: uuid(rng), createdAtNs, messages: 0 };
      sessions.push(s);
      yield { session: { id: s.id, taskId: s.taskId, createdAtNs } };
    }
    const session = sessions[Math.max(0, newest - rng.int(0, 3))];
    const turnId = `${session.id.slice(0, 8)}-turn-${Math.floor(session.messages++ / 12)}`;
    // The oldest tenth of the store predates updated_at being written.
    const updatedAtNs = i < p.messages / 10 ? null : createdAtNs + BigInt(rng.int(0, 90_000)) * 1_000_000n;
    const base = { id: uuid(rng), sessionId: session.id, taskId: session.taskId, turnId, createdAtNs, updatedAtNs };

    if (i === nextSubagentAt && subagentIndex < p.subagentMessages) {
      subagentIndex++;
      const slot = p.messages / p.subagentMessages;
      nextSubagentAt = Math.floor((subagentIndex + rng.next()) * slot);
      yield { message: { ...base, authorType: 'agent', type: 'tool_call', content: slice(30, 120), metadata: subagentMetadata(rng, slice) } };
      continue;
    }
    const roll = rng.next();
    let message: HostMessage;
    if (roll < 0.12) {
      message = { ...base, authorType: 'user', type: 'message', content: slice(80, 1200), metadata: null };
    } else if (roll < 0.4) {
      message = {
        ...base,
        authorType: 'agent',
        type: 'message',
        content: slice(40, 1500),
        metadata: roll < 0.26 ? null : JSON.stringify({ model: rng.pick(MODELS) }),
      };
    } else {
      const kind = rng.pick(TOOL_KINDS);
      // One tool call in 5,000 merely mentions the kind in its output: a text prefilter alone
      // would take it for a subagent launch.
      const output = rng.next() < 0.0002 ? `grep: Kind: "subagent_task" ${slice(20, 200)}` : slice(0, 1150);
      const metadata = {
        tool_call_id: `toolu_01${rng.base62(22)}`,
        status: 'completed',
        title: kind,
        normalized: { kind, [kind]: { target: slice(10, 60), output } },
      };
      message = { ...base, authorType: 'agent', type: 'tool_call', content: slice(20, 100), metadata: JSON.stringify(metadata) };
    }
    // Legacy rows: metadata the host wrote as '', 'null' or truncated JSON (1 in 2,000 each).
    const legacy = rng.next();
    if (legacy < 0.0015) message.metadata = legacy < 0.0005 ? '' : legacy < 0.001 ? 'null' : '{broken';
    yield { message };
  }
}

function subagentMetadata(rng: SeededRandom, slice: (min: number, max: number) => string): string {
  const roll = rng.next();
  const base = {
    description: slice(20, 80),
    prompt: slice(200, 2_000),
    subagent_type: rng.pick(['code-reviewer', 'security-reviewer', 'general-purpose', 'Explore']),
  };
  const [toolStatus, payload] =
    roll < 0.75
      ? [
          'completed',
          { ...base, status: 'async_launched', agent_id: `agent_${rng.hex(12)}`, model: rng.pick(MODELS), is_async: true, total_tokens: 0, duration_ms: 0 },
        ]
      : roll < 0.975
        ? [
            'completed',
            {
              ...base,
              status: 'completed',
              agent_id: `agent_${rng.hex(12)}`,
              model: rng.pick(MODELS),
              total_tokens: rng.int(5_000, 275_717),
              tool_use_count: rng.int(1, 60),
              duration_ms: rng.int(5_000, 900_000),
              result_text: slice(100, 3_000),
            },
          ]
        : roll < 0.995
          ? ['in_progress', { ...base, status: 'started', child_session_id: `ses_${rng.base62(24)}` }]
          : ['pending', base];
  return JSON.stringify({
    tool_call_id: `toolu_01${rng.base62(22)}`,
    status: toolStatus,
    title: 'Task',
    normalized: { kind: 'subagent_task', subagent_task: payload },
  });
}

// ---------------------------------------------------------------- progress
