// The usage ledger's groups, cards and sessions in one order on both dialects when their
// tokens tie: the subagent type not reported last (as `tokens.by_subagent_type` lists it), and
// text by its bytes whatever collation the database or the host's column has. The report shows
// the first ten of each, so an order that differs between dialects shows different rows.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const T0 = 1_785_000_000_000_000_000n; // 2026-07-25T17:20:00Z: capture_since

describeBothDialects('report: the usage ledger in one order on both dialects', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
  });
  afterEach(async () => db.close());

  /** One session per card, one run each, every run the same tokens: only the tie-break orders them. */
  async function seedTies(cards: readonly (readonly [taskId: string, subagentType: string | null])[]) {
    for (const [i, [taskId, subagentType]] of cards.entries()) {
      const session = `s-${i}`;
      await insertSession(db, session, taskId);
      const at = hostTimestamp(db, T0 + BigInt(i + 1) * SECOND);
      await insertSubagentRow(db, {
        id: `r-${i}`,
        sessionId: session,
        taskId,
        toolCallId: 'tc',
        executionId: 'e',
        subagentType,
        observedAt: at,
        settledAt: at,
      });
      await db.query(
        `INSERT INTO task_session_subagent_usage (task_session_id, agent_execution_id, tool_call_id, model, source, requests,
           input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
         VALUES ($1, 'e', 'tc', 'm', 'live', 1, 10, 0, 0, 0, $2)`,
        [session, at],
      );
    }
  }

  it('a group of no reported type comes after the named ones; names by their bytes (B before a)', async () => {
    await seedTies([
      ['card-n', null],
      ['card-a', 'a'],
      ['card-B', 'B'],
    ]);
    const ledger = (await db.store().report()).usage_ledger!;
    expect(ledger.by_subagent_type_and_model.map((g) => g.subagent_type)).toEqual(['B', 'a', null]);
    expect(ledger.by_card.map((c) => c.task_id)).toEqual(['card-B', 'card-a', 'card-n']);
  });

  if (dialect === 'postgres')
    it('PostgreSQL: the same order where the columns sort by a linguistic collation (an ICU database default)', async () => {
      await db.exec(`ALTER TABLE task_session_subagents ALTER COLUMN subagent_type TYPE text COLLATE "und-x-icu"`);
      await db.exec(`ALTER TABLE task_sessions ALTER COLUMN task_id TYPE text COLLATE "und-x-icu"`);
      await seedTies([
        ['card-a', 'a'],
        ['card-B', 'B'],
        ['card-n', null],
      ]);
      const ledger = (await db.store().report()).usage_ledger!;
      expect(ledger.by_subagent_type_and_model.map((g) => g.subagent_type)).toEqual(['B', 'a', null]);
      expect(ledger.by_card.map((c) => c.task_id)).toEqual(['card-B', 'card-a', 'card-n']);
    });
});
