// `report` on a store with imported Claude Code transcripts: after the report, the usage
// ledger's section — tokens per subagent type and model over every run, and the subagents'
// share of their sessions' tokens (parents' own usage from the main transcripts) — with
// figures equal to the ledger's own sums; nothing on a store without ledger figures, or on a
// scoped report (the section covers the whole store).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { importInto, RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

async function report(args: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(['report', ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const total = `COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) + COALESCE(cache_read_input_tokens, 0) + COALESCE(cache_creation_input_tokens, 0)`;
const int = (n: number) => n.toLocaleString('en-US');

describeBothDialects('report: the usage ledger section', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('tokens per subagent type and model, and the subagents share of their sessions', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const [sub] = await store.query<{ t: unknown; r: unknown }>(`SELECT SUM(${total}) AS t, SUM(requests) AS r FROM task_session_subagent_usage`);
    const [parent] = await store.query<{ t: unknown }>(`SELECT SUM(${total}) AS t FROM task_session_parent_usage`);
    const s = Number(sub.t);
    const p = Number(parent.t);
    const run = await report(store.args);
    expect(run.code).toBe(0);
    const section = run.out.slice(run.out.indexOf('Usage ledger:'));
    expect(section).toContain(
      `subagents used ${int(s)} tokens over 8 runs: ${((100 * s) / (s + p)).toFixed(1)}% of their sessions' ${int(s + p)} (the parents' own: ${int(p)})`,
    );
    expect(section).toMatch(new RegExp(`general-purpose · claude-opus-5-5 +${int(s)} tokens · 8 runs · ${Number(sub.r)} requests\\n`));
    expect(s).toBeGreaterThan(p); // the recorded sessions fan out: most tokens are the subagents'
  });

  it('no section without ledger figures, nor on a scoped report', async () => {
    await importInto(store, RECORDED_PROJECTS);
    expect((await report([...store.args, '--task', '/tmp/subagent-context-claude-recording'])).out).not.toContain('Usage ledger');
    await store.exec('DELETE FROM task_session_subagent_usage');
    const run = await report(store.args);
    expect(run.code).toBe(0);
    expect(run.out).not.toContain('Usage ledger');
  });
});
