// The identity-bounds tests' history: the instants (history before the store's clock), the
// digest that stands in for an execution id beyond the bound, and per suite the activation
// keys and a history subagent message (on the suite's current database, read through \`current\`).
import { createHash } from 'node:crypto';
import type { TestDb } from './test-db.js';
import { hostTimestamp, SECOND } from './host-timestamp.js';
import { insertMessage } from './seed-host-rows.js';

export const T0 = 1_785_000_000_000_000_000n; // history messages are created before the store's clock starts
export const CLOCK_START = T0 + 3_600_000_000_000n; // an hour later: runMigrations samples capture_since here

/** The digest that stands in for an execution id beyond the bound, computed independently of src/. */
export const digestOf = (id: string) => `sha256:${createHash('sha256').update(Buffer.from(id, 'utf8')).digest('hex')}`;

/** The activation keys and history messages of an identity-bounds suite, on the database `current()` returns. */
export function identityHistory(current: () => TestDb) {
  const keysOf = async () =>
    Object.fromEntries((await current().query<{ key: string; value: string }>('SELECT key, value FROM kandev_meta')).map((k) => [k.key, k.value]));

  /** A history subagent message created `s` seconds after T0. */
  const history = (id: string, s: bigint, over: { toolCallId?: unknown; taskId?: string; turnId?: string; subagent?: Record<string, unknown> } = {}) =>
    insertMessage(current(), {
      id,
      sessionId: 's1',
      taskId: over.taskId ?? 'task-1',
      turnId: over.turnId ?? 'turn-1',
      metadata: JSON.stringify({
        tool_call_id: 'toolCallId' in over ? over.toolCallId : id,
        status: 'completed',
        normalized: { kind: 'subagent_task', subagent_task: over.subagent ?? { model: 'm' } },
      }),
      createdAt: hostTimestamp(current(), T0 + s * SECOND),
    });

  return { keysOf, history };
}
