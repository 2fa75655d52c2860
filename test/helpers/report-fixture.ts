// A small but varied activated store for the report's CLI and browser tests: turns of 1–4
// subagents on both sides of backfill_through, tokens spread over several decades with some
// NULL, several subagent types and models, 'unknown' and real executions. Deterministic.
import { parseInstant } from '../../src/instant.js';
import type { TestDb } from './test-db.js';
import { setKeys } from './activation-keys.js';
import { hostTimestamp } from './host-timestamp.js';
import { insertChatMessage, insertSession } from './seed-host-rows.js';
import { insertSubagentRow } from './seed-subagent-rows.js';

export const FIXTURE_KEYS = {
  subagent_context_backfill_through: '2026-03-01T10:00:00.000000000Z',
  subagent_context_capture_since: '2026-03-01T12:00:00.000000000Z',
  subagent_context_execution_since: '2026-03-01T12:00:00.000000000Z',
};

const TYPES = ['code-reviewer', 'security-reviewer', 'Explore', null, 'test-runner'];
const MODELS = ['claude-opus-5[1m]', 'claude-sonnet-5', null];
const TOKENS = [812, 1_540, 4_200, 12_900, 31_000, null, 75_500, 150_000, 262_000, 48_000, null, 9_100];

/** Backfilled turns (before B) of these sizes, then live turns (after C) of these sizes. */
const BACKFILL_TURNS = [1, 3, 3, 1, 3];
const LIVE_TURNS = [1, 2, 3, 1, 4, 3, 1, 2, 3, 1, 3, 2, 1];

export async function seedReportFixture(db: TestDb): Promise<void> {
  const at = (ns: bigint) => hostTimestamp(db, ns);
  const sessions = [
    ['s1', 'T1'],
    ['s2', 'T1'],
    ['s3', 'T2'],
    ['s4', 'T3'],
    ['s5', 'T4'],
    ['s6', 'T4'],
  ];
  for (const [s, t] of sessions) await insertSession(db, s, t);
  let n = 0;
  const turn = async (source: 'live' | 'backfill', startNs: bigint, size: number, t: number) => {
    const [sessionId, taskId] = sessions[t % 5];
    for (let k = 0; k < size; k++, n++) {
      const observed = startNs + BigInt(k) * 60_000_000_000n;
      await insertSubagentRow(db, {
        id: `r${n}`,
        sessionId,
        taskId,
        turnId: `${source}-turn-${t}`,
        source,
        executionId: source === 'backfill' || n % 7 === 0 ? 'unknown' : `exec-${t % 4}`,
        observedAt: at(observed),
        settledAt: n % 9 === 8 ? null : at(observed + 30_000_000_000n),
        totalTokens: TOKENS[n % TOKENS.length],
        subagentType: TYPES[n % TYPES.length],
        model: MODELS[n % MODELS.length],
      });
    }
  };
  const hour = 3_600_000_000_000n;
  const b = parseInstant('2026-03-01T00:00:00Z')!;
  for (const [t, size] of BACKFILL_TURNS.entries()) await turn('backfill', b + BigInt(t) * hour, size, t);
  const c = parseInstant('2026-03-01T13:00:00Z')!;
  for (const [t, size] of LIVE_TURNS.entries()) await turn('live', c + BigInt(t) * hour, size, t);
  await insertChatMessage(db, 'm6', 's6', at(c));
  await setKeys(db, FIXTURE_KEYS);
}
