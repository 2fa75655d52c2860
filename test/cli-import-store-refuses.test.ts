// `import claude-code` when the store refuses a transcript's lines (review of 2026-12-05): each
// such transcript is named in a WARN and counted apart in the summary, and the run exits 7
// (database error), so a cron job notices. It used to be counted among the transcripts "left
// out of this import" with exit 0. Nothing is lost: the next run, the store willing, imports
// exactly what a run that never failed imports. A trigger on the import's progress table is the
// refusal, on both dialects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { byDialect } from './helpers/by-dialect.js';
import { RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const REFUSE = {
  sqlite: `CREATE TRIGGER refuse_import BEFORE INSERT ON subagent_context_import_progress
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
  postgres: `CREATE FUNCTION refuse_import() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
             CREATE TRIGGER refuse_import BEFORE INSERT ON subagent_context_import_progress FOR EACH ROW EXECUTE FUNCTION refuse_import()`,
};
const ALLOW = { sqlite: 'DROP TRIGGER refuse_import', postgres: 'DROP TRIGGER refuse_import ON subagent_context_import_progress' };

describeBothDialects('cli: import claude-code into a store that refuses the lines', (dialect) => {
  let store: ProxyStore;
  let reference: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    reference = await openProxyStore(dialect);
  });
  afterEach(async () => {
    await store.close();
    await reference.close();
  });

  it('WARNs per transcript, counts them apart, exits 7; the next run imports what a run that never failed does', async () => {
    const nothing = mkdtempSync(join(tmpdir(), 'cli-import-empty-'));
    const prepared = await cli(['import', 'claude-code', '--from', nothing, ...store.args]);
    rmSync(nothing, { recursive: true });
    expect(prepared.code).toBe(EXIT.ok); // an empty folder: the store is prepared, so the trigger has its table
    await store.exec(byDialect(dialect, REFUSE));

    const refused = await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...store.args, '--json']);
    expect(refused.code).toBe(EXIT.database);
    const summary = JSON.parse(refused.out) as { transcripts: number; writeFailed: number; deferred: number };
    // The two sessions' main transcripts are refused; their eight subagent transcripts wait for
    // the launches those hold, as they do whenever a launch is not imported yet.
    expect(summary).toMatchObject({ writeFailed: 2, deferred: 8, transcripts: 0 });
    const refusals = refused.err.split('\n').filter((l) => l.includes('WARN the store refused'));
    expect(refusals).toHaveLength(2);
    for (const w of refusals)
      expect(w).toMatch(/WARN the store refused a transcript’s lines: left for the next import \{"path":".*\.jsonl","error":"refused by the test"\}$/);
    const text = await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...store.args]);
    expect(text.code).toBe(EXIT.database);
    expect(text.out).toContain('  2 transcripts not written: the store refused them (see the WARN lines); the next import retries them\n');

    await store.exec(byDialect(dialect, ALLOW));
    const next = await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...store.args]);
    expect(next.code).toBe(EXIT.ok);
    expect(next.err).toBe('');
    const ledger = 'SELECT tool_call_id, model, input_tokens, output_tokens FROM task_session_subagent_usage ORDER BY tool_call_id, model';
    expect(await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...reference.args])).toMatchObject({ code: EXIT.ok });
    const expected = await reference.query(ledger);
    expect(expected.length).toBeGreaterThan(0);
    expect(await store.query(ledger)).toEqual(expected);
  });
});
