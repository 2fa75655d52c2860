// The ACP traffic recorded from real agents (recordings/acp/*.jsonl, re-recorded by
// scripts/record-acp-fixtures.ts): one session/update params object per line, in arrival order.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { join } from 'node:path';
import { createAcpRecorder, type AcpHostContext, type AcpRecorderCounters } from '../../src/acp/index.js';
import type { RecordOutcome, StoreOptions, SubagentContextRow, SubagentContextStore } from '../../src/types.js';
import { steppingClock } from './clock.js';
import type { ScenarioName } from '../agents/scenarios.js';
import { EXEC_A } from './live-db.js';

/** Each recording is one scenario of the real-agent suite, re-recorded by scripts/record-acp-fixtures.ts. */
export type AcpFixtureName = ScenarioName;

export interface AcpUpdate {
  sessionId: string;
  update: Record<string, unknown>;
}

const DIR = join(import.meta.dirname, '..', '..', 'recordings', 'acp');

export function loadAcpFixture(name: AcpFixtureName): AcpUpdate[] {
  return readFileSync(join(DIR, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AcpUpdate);
}

/** The ACP session the host started (the recorded session/new result). */
export function acpSessionOf(name: AcpFixtureName): string {
  return (JSON.parse(readFileSync(join(DIR, `${name}.meta.json`), 'utf8')) as { acpSessionId: string }).acpSessionId;
}

/** The host identity the tests give every known ACP session. */
export const HOST: AcpHostContext = { sessionId: 's1', taskId: 'task-1', executionId: EXEC_A, turnId: 'turn-1' };

/** A context that knows exactly these ACP sessions. */
export function contextFor(...acpSessionIds: string[]): (id: string) => AcpHostContext | undefined {
  const known = new Set(acpSessionIds);
  return (id) => (known.has(id) ? HOST : undefined);
}

/**
 * Hand-built updates of one known ACP session through a recorder over a fresh store of `db`, in
 * order, each awaited: the outcomes, the session s1's rows in the store's order, and the
 * recorder's counters.
 */
export async function recordInOrder(
  db: { store(options?: StoreOptions): SubagentContextStore },
  acpSessionId: string,
  updates: { sessionId: string; update: object }[],
): Promise<{ outcomes: (RecordOutcome | undefined)[]; rows: SubagentContextRow[]; counters: AcpRecorderCounters }> {
  const store = db.store({ clock: steppingClock() });
  const recorder = createAcpRecorder(store, { context: contextFor(acpSessionId) });
  const outcomes: (RecordOutcome | undefined)[] = [];
  for (const u of updates) outcomes.push(await recorder.sessionUpdate(u));
  return { outcomes, rows: await store.listBySession('s1'), counters: recorder.counters() };
}

/**
 * A recording through a recorder over a fresh store of `db`, every update handed over without
 * awaiting (as an SDK's handler does: the recorder keeps each session's order); every write
 * persisted, nothing skipped or failed; the session s1's rows by tool call.
 */
export async function replayFixture(
  db: { store(options?: StoreOptions): SubagentContextStore },
  name: AcpFixtureName,
): Promise<Map<string, SubagentContextRow>> {
  const store = db.store({ clock: steppingClock() });
  const recorder = createAcpRecorder(store, { context: contextFor(acpSessionOf(name)) });
  const outcomes = await Promise.all(loadAcpFixture(name).map((u) => recorder.sessionUpdate(u)));
  expect(outcomes.filter((o) => o !== undefined && o !== 'persisted')).toEqual([]);
  expect(store.counters()).toMatchObject({ failed: 0, skipped_no_identity: 0 });
  return new Map((await store.listBySession('s1')).map((r) => [r.tool_call_id, r]));
}
