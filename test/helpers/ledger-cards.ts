// Two cards' usage ledgers from the recorded Claude Code transcripts: each recorded session is
// copied into a projects folder of its own and imported under its own task (--task), so a
// scoped report has another card's figures to leave out. And the ledger's figures per session
// read straight from its tables (plain sums, apart from the report's statements), for the
// tests to compare the report with.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importInto, RECORDED_PROJECTS } from './claude-import.js';
import type { ProxyStore } from './proxy-store.js';

const PROJECT = '-tmp-subagent-context-claude-recording';
/** The recorded session with six subagent runs, and the one with two. */
export const SESSION_A = 'ab472b32-3fab-4298-adbc-05b36d05cf3f';
export const SESSION_B = 'b69fd563-3142-4fac-804e-579aedceb364';
export const CARD_A = 'card-a';
export const CARD_B = 'card-b';

/** SESSION_A imported under CARD_A, SESSION_B under CARD_B. */
export async function importTwoCards(store: ProxyStore): Promise<void> {
  for (const [session, task] of [
    [SESSION_A, CARD_A],
    [SESSION_B, CARD_B],
  ]) {
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-ledger-card-'));
    try {
      mkdirSync(join(dir, PROJECT));
      cpSync(join(RECORDED_PROJECTS, PROJECT, `${session}.jsonl`), join(dir, PROJECT, `${session}.jsonl`));
      cpSync(join(RECORDED_PROJECTS, PROJECT, session), join(dir, PROJECT, session), { recursive: true });
      const run = await importInto(store, dir, { task });
      if (run.warns.length) throw new Error(`import warned: ${JSON.stringify(run.warns)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

export interface LedgerSums {
  runs: number;
  subagent: number;
  parent: number;
  /** total_tokens summed over the runs' subagent rows. */
  reported: number;
  /** Runs whose subagent row reported total_tokens. */
  reportedRuns: number;
}

const TOTAL = 'COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) + COALESCE(cache_read_input_tokens, 0) + COALESCE(cache_creation_input_tokens, 0)';

/** The ledger's figures of the given sessions, summed. */
export async function ledgerSums(store: ProxyStore, sessions: readonly string[]): Promise<LedgerSums> {
  const sums: LedgerSums = { runs: 0, subagent: 0, parent: 0, reported: 0, reportedRuns: 0 };
  for (const id of sessions) {
    const [runs] = await store.query<{ n: unknown }>(
      'SELECT COUNT(*) AS n FROM (SELECT DISTINCT agent_execution_id, tool_call_id FROM task_session_subagent_usage WHERE task_session_id = $1) AS r',
      [id],
    );
    const [sub] = await store.query<{ t: unknown }>(`SELECT SUM(${TOTAL}) AS t FROM task_session_subagent_usage WHERE task_session_id = $1`, [id]);
    const [parent] = await store.query<{ t: unknown }>(`SELECT SUM(${TOTAL}) AS t FROM task_session_parent_usage WHERE task_session_id = $1`, [id]);
    const [reported] = await store.query<{ t: unknown; n: unknown }>(
      `SELECT SUM(s.total_tokens) AS t, COUNT(s.total_tokens) AS n FROM task_session_subagents AS s
        WHERE s.task_session_id = $1
          AND EXISTS (SELECT 1 FROM task_session_subagent_usage AS u
                       WHERE u.task_session_id = s.task_session_id AND u.agent_execution_id = s.agent_execution_id AND u.tool_call_id = s.tool_call_id)`,
      [id],
    );
    sums.runs += Number(runs.n);
    sums.subagent += Number(sub.t);
    sums.parent += Number(parent.t);
    sums.reported += Number(reported.t);
    sums.reportedRuns += Number(reported.n);
  }
  return sums;
}
