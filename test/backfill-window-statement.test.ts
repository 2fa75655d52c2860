// Issue 32 item 5: the window walk's statement (queries/postgres/backfill_window_contexts.sql)
// selects its messages by a created_at window and locks its rows' sessions; every rule after the
// selection is the session chunk's (backfill_subagent_contexts.sql), where the DBA reads why each
// is written as it is. The two files repeat those rules, and this test keeps them verbatim alike,
// so a rule changed in one file and not the other fails here (the property tests would catch
// most such drifts too, on random stores, but not all: a rule that no random store exercises).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (name: string) => readFileSync(`queries/postgres/${name}.sql`, 'utf8');

/** The text from the line starting `from` to the line before the first line starting `to` after it. */
function between(text: string, from: string, to: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(from));
  const end = lines.findIndex((l, i) => i > start && l.startsWith(to));
  if (start < 0 || end < 0) throw new Error(`no "${from}" … "${to}" in the statement`);
  return lines.slice(start, end).join('\n');
}

describe('the window statement and the session chunk statement share their rules (issue 32 item 5)', () => {
  const chunk = read('backfill_subagent_contexts');
  const window = read('backfill_window_contexts');
  it('the derivation, qualification and ranking (parsed, qualifying, ranked) are the same text', () => {
    // The chunk statement's CTEs end with ranked's ")" before its INSERT; the window statement
    // goes on from there with its "written" CTE.
    const chunkRules = between(chunk, '), parsed AS (', 'INSERT INTO');
    expect(chunkRules).toContain('row_number() OVER (PARTITION BY q.task_session_id, q.tool_call_id');
    expect(chunkRules.endsWith('\n)')).toBe(true);
    expect(between(window, '), parsed AS (', '), written AS')).toBe(chunkRules.slice(0, -'\n)'.length));
  });
  it('the INSERT: the same columns and the same values, from the rows the statement settled on', () => {
    const insert = (text: string) => between(text, 'INSERT INTO task_session_subagents (', '  FROM ');
    expect(insert(chunk)).toContain("'backfill',");
    expect(insert(window)).toBe(insert(chunk));
    expect(window).toContain('ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING;');
  });
});
