// AC-11's pin: the spec's six terminal tool statuses, TERMINAL_TOOL_STATUSES /
// isTerminalToolStatus, and every list of them in the package's SQL are one and the same, so
// an edit to any copy fails here. SQL files are found by content, not by name: any file under
// queries/ or schema/ that mentions a terminal status must mention it only inside an IN (...)
// list, and every such list must be exactly the six (so a new query — the backfill, a health
// check — is covered the day it is written).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTerminalToolStatus, TERMINAL_TOOL_STATUSES } from '../src/index.js';

/** The spec's enumeration (AC-11, corrected in revision 1), copied from its text. */
const SPEC_SIX = ['complete', 'completed', 'success', 'error', 'failed', 'cancelled'];

function sqlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sqlFiles(p) : p.endsWith('.sql') ? [p] : [];
  });
}

/** SQL without comments, so prose that quotes a status is not mistaken for a classification. */
function stripComments(sql: string): string {
  return sql.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ');
}

/** Every IN (...) list of string literals in the text, as arrays of values. */
function inLists(sql: string): string[][] {
  const lists: string[][] = [];
  for (const m of sql.matchAll(/\bIN\s*\(((?:\s*'(?:[^']|'')*'\s*,?)+)\)/gi)) {
    lists.push([...m[1].matchAll(/'((?:[^']|'')*)'/g)].map((v) => v[1].replace(/''/g, "'")));
  }
  return lists;
}

const quoted = (sql: string) => [...sql.matchAll(/'((?:[^']|'')*)'/g)].map((v) => v[1]);

describe('terminal tool statuses (AC-11 pin)', () => {
  it('TERMINAL_TOOL_STATUSES is exactly the spec six, and isTerminalToolStatus agrees value by value', () => {
    expect([...TERMINAL_TOOL_STATUSES]).toEqual(SPEC_SIX);
    for (const s of SPEC_SIX) expect(isTerminalToolStatus(s), s).toBe(true);
    for (const s of ['pending', 'in_progress', 'COMPLETED', 'Complete', 'canceled', 'done', ' completed', '', 'async_launched', null, undefined]) {
      expect(isTerminalToolStatus(s), String(s)).toBe(false);
    }
  });

  it('every terminality list in the SQL equals TERMINAL_TOOL_STATUSES, on both dialects', () => {
    const found: Record<string, string[]> = {};
    for (const file of [...sqlFiles('queries'), ...sqlFiles('schema')]) {
      const sql = stripComments(readFileSync(file, 'utf8'));
      const mentions = quoted(sql).filter((v) => SPEC_SIX.includes(v));
      if (mentions.length === 0) continue;
      const terminalLists = inLists(sql).filter((list) => list.some((v) => SPEC_SIX.includes(v)));
      // Every mention sits in a list, and every list is the whole set: no partial copy, no stray literal.
      expect(terminalLists.flat().filter((v) => SPEC_SIX.includes(v)).length, `${file}: a terminal status outside an IN list`).toBe(mentions.length);
      for (const list of terminalLists) expect([...list].sort(), file).toEqual([...TERMINAL_TOOL_STATUSES].sort());
      found[file] = terminalLists.map((l) => l.join(','));
    }
    // The live upsert classifies terminality in both dialects; the discovery must see it.
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining([join('queries', 'sqlite', 'upsert_subagent_context.sql'), join('queries', 'postgres', 'upsert_subagent_context.sql')]),
    );
  });

  it('the SQL scanner finds a partial list and a stray literal (so the check above can fail)', () => {
    const partial = stripComments(`SELECT 1 WHERE s IN ('completed', 'failed', 'cancelled') -- 'success' in a comment`);
    expect(inLists(partial)).toEqual([['completed', 'failed', 'cancelled']]);
    const stray = stripComments(`SELECT CASE WHEN s = 'error' THEN 1 END`);
    expect(quoted(stray).filter((v) => SPEC_SIX.includes(v))).toEqual(['error']);
    expect(inLists(stray)).toEqual([]);
  });
});
