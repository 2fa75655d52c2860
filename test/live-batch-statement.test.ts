// queries/postgres/upsert_subagent_contexts_batch.sql carries upsert_subagent_context.sql's
// conflict clause rule for rule. PostgreSQL's recordFrames sends bursts through it. The
// statement is PostgreSQL's alone (scripts/lib/query-files.ts DIALECT_ONLY): SQLite's
// recordFrames runs the single upsert per frame in one transaction (in-process statements cost
// microseconds: measured 2.4x faster than one JSON statement), and test/live-model.test.ts
// holds recordFrames to the merge model on both dialects.
// Seeded random sequences are applied frame by frame through the single upsert on one
// database and as rounds of the batch statement on another: the rows must be identical
// apart from their generated ids. Each round's JSON carries exactly the single upsert's
// parameters (one mapper, src/frame-normalization.ts upsertParameters), keyed by the columns the
// statement reads.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as postgresGenerated from '../generated/postgres/index.js';
import { loadFragments } from '../scripts/lib/codegen-fragments.js';
import { expandedQueryText } from '../scripts/lib/query-files.js';
import { blankComments } from '../scripts/lib/sql-lex.js';
import { batchRounds, roundParameter, type PendingFrame } from '../src/postgres/batch-rounds.js';
import { createColumnTimeFormatter } from '../src/column-time.js';
import { int64Text, normalizeFrame, upsertParameters } from '../src/frame-normalization.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { randomChunks, randomClock, randomSequence } from './helpers/live-random-frames.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const SEEDS = Array.from({ length: 24 }, (_, i) => 101 + i);

describe('batch statement equivalence [postgres]', () => {
  const dialect = 'postgres';
  let single: TestDb;
  let batched: TestDb;
  beforeEach(async () => {
    single = await openTestDb(dialect, 'package');
    batched = await openTestDb(dialect, 'package');
    for (const db of [single, batched]) await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => {
    await single.close();
    await batched.close();
  });

  async function applyRounds(frames: PendingFrame[]): Promise<number> {
    const columnTime = createColumnTimeFormatter('');
    const rounds = batchRounds(frames);
    for (const round of rounds) await postgresGenerated.upsertSubagentContextsBatch.run({ frames: roundParameter(round, columnTime) }, batched.pool!);
    return rounds.length;
  }

  it('applies seeded sequences exactly as the single upsert does, frame by frame', async () => {
    const columnTime = createColumnTimeFormatter('');
    let multiRoundBursts = 0;
    let frameCount = 0;
    for (const seed of SEEDS) {
      const { frames } = randomSequence(seed, 's1', 's-missing');
      const clock = randomClock(seed);
      const pending: PendingFrame[] = [];
      for (const f of frames) {
        let input;
        try {
          input = normalizeFrame(f);
        } catch {
          continue; // an unreadable frame never reaches SQL on either path
        }
        if (input === null || input.sessionId !== 's1') continue; // skipped, or no host session row
        pending.push({ input, observedAtNs: clock() });
      }
      frameCount += pending.length;
      // Frame by frame through the single upsert, with each frame's own instant.
      for (const { input, observedAtNs } of pending) {
        await postgresGenerated.upsertSubagentContext.run(upsertParameters(input, columnTime(observedAtNs), int64Text), single.pool!);
      }
      // The same frames as bursts, each burst as rounds of the batch statement.
      for (const chunk of randomChunks(seed, pending, 12)) {
        if (chunk.length > 0 && (await applyRounds(chunk)) > 1) multiRoundBursts++;
      }
    }
    expect(frameCount).toBeGreaterThan(200);
    expect(multiRoundBursts).toBeGreaterThan(5); // bursts with a key repeated: several rounds
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ id: _id, ...rest }) => rest);
    const a = strip((await single.store().listBySession('s1')) as unknown as Record<string, unknown>[]);
    const b = strip((await batched.store().listBySession('s1')) as unknown as Record<string, unknown>[]);
    expect(a.length).toBeGreaterThan(5);
    expect(b).toEqual(a);
  });
});

describe('batch statement JSON [postgres]', () => {
  const dialect = 'postgres';
  /** The keys the dialect's batch statement reads from each element of :frames. */
  function keysTheStatementReads(): string[] {
    // As the database runs it: the derived text columns ({{text_record()}}) expanded, comments blanked.
    const file = `queries/${dialect}/upsert_subagent_contexts_batch.sql`;
    const sql = blankComments(expandedQueryText('.', file, loadFragments('.', dialect)));
    const record = /jsonb_to_recordset\(:frames!::jsonb\) AS f\(([^)]*)\)/.exec(sql);
    return record ? record[1].split(',').map((c) => c.trim().split(/\s+/)[0]) : [];
  }

  it('each frame is one object keyed by the columns the statement reads, one per upsert parameter', () => {
    const input = normalizeFrame({ sessionId: 's1', taskId: 't1', toolCallId: 'tc', payload: { total_tokens: 2n ** 62n } })!;
    const columnTime = createColumnTimeFormatter('');
    const [frame, ...rest] = JSON.parse(roundParameter([{ input, observedAtNs: 1_780_000_000_000_000_001n }], columnTime)) as Record<string, unknown>[];
    expect(rest).toEqual([]);
    const read = keysTheStatementReads();
    expect(read.length).toBeGreaterThan(10);
    expect(Object.keys(frame).sort()).toEqual([...read].sort());
    expect(Object.keys(frame)).toHaveLength(Object.keys(upsertParameters(input, '', int64Text)).length);
    expect(frame).toMatchObject({
      task_session_id: 's1',
      task_id: 't1',
      tool_call_id: 'tc',
      agent_execution_id: 'unknown',
      total_tokens: String(2n ** 62n),
      is_async: 0,
    });
    expect(frame.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
