// The backfill's rows (AC-21, AC-23, AC-23a): every column from its named source, settled_at
// and updated_at falling back to created_at, and NULL, never 0, for what was not reported.
// Which messages the backfill takes is test/migrations-backfill-selection.test.ts's.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilled, backfillHelpers, UUID_V4 } from './helpers/backfill-helpers.js';

describeBothDialects('runMigrations: backfill', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());
  const { ts, message, migrate, rows } = backfillHelpers(dialect, () => db);

  it('AC-21: every column from its named source; tool_status from top-level status, agent_status from the child, turn_id from the column', async () => {
    await message({
      id: 'm1',
      turnId: 'turn-7',
      // +02:00 and a trimmed fraction: the instant, not the text, becomes observed_at
      createdAt: ts('2026-08-01 10:00:00.25', '2026-08-01 12:00:00.25+02:00'),
      updatedAt: ts('2026-08-01 10:05:00.000001', '2026-08-01T10:05:00.000001Z'),
      metadata: subagentMetadata({
        toolCallId: 'toolu_done',
        toolStatus: 'completed',
        parentToolCallId: 'toolu_parent',
        subagent: {
          status: 'async_launched',
          description: 'Explore',
          subagent_type: 'general-purpose',
          agent_id: 'agent-1',
          child_session_id: 'ses_c',
          model: 'claude-opus-5[1m]',
          total_tokens: 275717,
          tool_use_count: 17,
          duration_ms: 61234,
          is_async: true,
          prompt: 'not stored',
          result_text: 'not stored',
        },
      }),
    });
    // The two statuses differ the other way round: the child says completed, the ACP tool
    // call is still in progress, so the row must NOT settle (AC-11 keys off tool_status).
    await message({
      id: 'm2',
      turnId: '',
      createdAt: ts('2026-08-01 10:00:01'),
      updatedAt: ts('2026-08-01 10:09:00'),
      metadata: subagentMetadata({ toolCallId: 'toolu_running', toolStatus: 'in_progress', subagent: { status: 'completed' } }),
    });
    await migrate();
    expect(await rows()).toEqual([
      backfilled({
        turn_id: 'turn-7',
        tool_call_id: 'toolu_done',
        parent_tool_call_id: 'toolu_parent',
        subagent_type: 'general-purpose',
        description: 'Explore',
        agent_id: 'agent-1',
        child_session_id: 'ses_c',
        model: 'claude-opus-5[1m]',
        agent_status: 'async_launched',
        tool_status: 'completed',
        is_async: true,
        total_tokens: 275717,
        tool_use_count: 17,
        duration_ms: 61234,
        observed_at: '2026-08-01T10:00:00.250000Z',
        settled_at: '2026-08-01T10:05:00.000001Z',
        updated_at: '2026-08-01T10:05:00.000001Z',
      }),
      backfilled({
        tool_call_id: 'toolu_running',
        agent_status: 'completed',
        tool_status: 'in_progress',
        observed_at: '2026-08-01T10:00:01.000000Z',
        settled_at: null,
        updated_at: '2026-08-01T10:09:00.000000Z',
      }),
    ]);
    const stored = await db.query<{ id: string; o: string; s: string | null; u: string }>(
      byDialect(dialect, {
        sqlite: `SELECT id, observed_at AS o, settled_at AS s, updated_at AS u FROM task_session_subagents ORDER BY tool_call_id`,
        postgres: `SELECT id, observed_at::text AS o, settled_at::text AS s, updated_at::text AS u FROM task_session_subagents ORDER BY tool_call_id`,
      }),
    );
    for (const { id } of stored) expect(id).toMatch(UUID_V4);
    // SQLite: the package's fixed-width form (docs/timestamps.md), whatever form the host used.
    expect(stored.map(({ o, s, u }) => [o, s, u])).toEqual(
      byDialect(dialect, {
        sqlite: [
          ['2026-08-01 10:00:00.250000+00:00', '2026-08-01 10:05:00.000001+00:00', '2026-08-01 10:05:00.000001+00:00'],
          ['2026-08-01 10:00:01.000000+00:00', null, '2026-08-01 10:09:00.000000+00:00'],
        ],
        postgres: [
          ['2026-08-01 10:00:00.25', '2026-08-01 10:05:00.000001', '2026-08-01 10:05:00.000001'],
          ['2026-08-01 10:00:01', null, '2026-08-01 10:09:00'],
        ],
      }),
    );
  });

  it('AC-23a: settled_at and updated_at fall back to created_at when the host left updated_at NULL; each of the six terminal values settles', async () => {
    const terminal = ['complete', 'completed', 'success', 'error', 'failed', 'cancelled'];
    for (const [i, status] of [...terminal, 'pending'].entries()) {
      await message({
        id: `m${i}`,
        createdAt: ts(`2026-08-01 10:00:0${i}`),
        updatedAt: null,
        metadata: subagentMetadata({ toolCallId: `t${i}`, toolStatus: status, subagent: {} }),
      });
    }
    await migrate();
    const got = await rows();
    expect(got.map((r) => [r.tool_status, r.settled_at, r.updated_at])).toEqual(
      [...terminal, 'pending'].map((status, i) => {
        const at = `2026-08-01T10:00:0${i}.000000Z`;
        return [status, status === 'pending' ? null : at, at];
      }),
    );
  });

  it('AC-23, AC-7a, AC-8, AC-9: NULL, never 0, for what was not reported; a reported tool_use_count of 0 stays 0', async () => {
    const sub = (toolCallId: string, subagent: Record<string, unknown>) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent });
    await message({ id: 'm1', createdAt: ts('2026-08-01 10:00:01'), metadata: sub('async', { status: 'async_launched', is_async: true }) });
    await message({ id: 'm2', createdAt: ts('2026-08-01 10:00:02'), metadata: sub('zeros', { total_tokens: 0, tool_use_count: 0, duration_ms: 0 }) });
    await message({ id: 'm3', createdAt: ts('2026-08-01 10:00:03'), metadata: sub('negative', { total_tokens: -1, tool_use_count: -2, duration_ms: -3 }) });
    await message({ id: 'm4', createdAt: ts('2026-08-01 10:00:04'), metadata: sub('blank', { model: '', description: '', agent_id: '', status: '' }) });
    await migrate();
    const got = await rows();
    expect(got.map((r) => [r.tool_call_id, r.total_tokens, r.tool_use_count, r.duration_ms, r.is_async])).toEqual([
      ['async', null, null, null, true],
      ['zeros', null, 0, null, false],
      ['negative', null, null, null, false],
      ['blank', null, null, null, false],
    ]);
    expect(got[3]).toMatchObject({ model: null, description: null, agent_id: null, agent_status: null });
    const zeros = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM task_session_subagents WHERE total_tokens = 0 OR duration_ms = 0`);
    expect(Number(zeros[0].n)).toBe(0);
  });
});
