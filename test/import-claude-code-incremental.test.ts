// The import is incremental and survives what a live transcript folder does: a transcript
// still being written (a half-written last line waits for the next run; appended lines add
// exactly their usage, including a response whose lines straddle two runs), an older Claude
// Code's disagreeing lines, malformed lines (counted, skipped, one WARN), a subagent without
// its sidecar, and one whose launch is not known yet (left for the next run).
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { filesUnder, importInto, RECORDED_PROJECTS, referenceUsage } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** What an import leaves that must not depend on how the lines arrived (no instants of the import itself). */
async function outcome(store: ProxyStore): Promise<unknown> {
  const ledger = await store.query<Record<string, unknown>>(
    `SELECT task_session_id, tool_call_id, model, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens
       FROM task_session_subagent_usage ORDER BY task_session_id, tool_call_id, model`,
  );
  const parent = await store.query<Record<string, unknown>>(
    `SELECT task_session_id, model, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens
       FROM task_session_parent_usage ORDER BY task_session_id, model`,
  );
  const rows = await store.query<Record<string, unknown>>(
    `SELECT task_session_id, turn_id, tool_call_id, parent_tool_call_id, description, agent_id, agent_status, tool_status, is_async, total_tokens, observed_at, settled_at
       FROM task_session_subagents ORDER BY task_session_id, tool_call_id`,
  );
  const messages = await store.query<Record<string, unknown>>('SELECT id, turn_id, created_at FROM task_session_messages ORDER BY id');
  const numeric = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' || v === null ? v : n(v)]));
  return { ledger: ledger.map(numeric), parent: parent.map(numeric), rows: rows.map(numeric), messages };
}

function copyRecordings(): string {
  const copy = mkdtempSync(join(tmpdir(), 'claude-projects-'));
  cpSync(RECORDED_PROJECTS, copy, { recursive: true });
  return copy;
}

const mainOf = (dir: string) => filesUnder(dir, /^[0-9a-f-]{36}\.jsonl$/).find((f) => readFileSync(f, 'utf8').includes('FOLLOW-UP-LAUNCH'))!;

describeBothDialects('import claude-code: incremental', (dialect) => {
  let whole: ProxyStore;
  let piecewise: ProxyStore;
  const copies: string[] = [];
  beforeEach(async () => {
    whole = await openProxyStore(dialect);
    piecewise = await openProxyStore(dialect);
  });
  afterEach(async () => {
    await whole.close();
    await piecewise.close();
    for (const c of copies.splice(0)) rmSync(c, { recursive: true, force: true });
  });

  it('transcripts growing line by line, cut mid-line and mid-response, end exactly where one import of the whole files does', async () => {
    const full = copyRecordings();
    const growing = copyRecordings();
    copies.push(full, growing);
    // The review session's first response is four lines: one cut falls between its 2nd and 3rd.
    const main = mainOf(full);
    const text = readFileSync(main, 'utf8');
    const lines = text.split('\n');
    const id = (JSON.parse(lines[lines.findIndex((l) => l.includes('"type":"assistant"'))]) as { message: { id: string } }).message.id;
    const straddle = lines.map((l, i) => [l, i] as const).filter(([l]) => l.includes(`"id":"${id}"`))[1][1];
    const straddleAt = Buffer.byteLength(lines.slice(0, straddle + 1).join('\n') + '\n');
    const files = filesUnder(full, /\.jsonl$/).map((f) => ({ from: f, to: f.replace(full, growing), bytes: readFileSync(f) }));
    const cuts = [0.31, 0.5, 0.77, 1];
    for (const share of cuts) {
      for (const f of files) {
        const at = f.from === main && share === 0.31 ? straddleAt : Math.round(f.bytes.length * share);
        writeFileSync(f.to, f.bytes.subarray(0, at)); // mid-line almost always: a half-written last line
      }
      const { warns } = await importInto(piecewise, growing);
      // A subagent whose launch line has not arrived yet waits; at the end nothing waits.
      for (const w of warns) expect(w.msg).toBe('subagent transcript whose launch is not imported yet: left for the next import');
      if (share === 1) expect(warns).toEqual([]);
    }
    await importInto(whole, full);
    expect(await outcome(piecewise)).toEqual(await outcome(whole));
    const progress = await piecewise.query<{ byte_offset: unknown }>('SELECT byte_offset FROM subagent_context_import_progress');
    expect(progress.map((p) => n(p.byte_offset)).reduce((a, b) => a! + b!, 0)).toBe(files.reduce((a, f) => a + f.bytes.length, 0));
  });

  it('an older Claude Code (output_tokens 1 on all but the last line) split across two runs: the response counts once, with its final figure', async () => {
    const dir = copyRecordings();
    copies.push(dir);
    const main = mainOf(dir);
    const lines = readFileSync(main, 'utf8').split('\n');
    const id = (JSON.parse(lines[lines.findIndex((l) => l.includes('"type":"assistant"'))]) as { message: { id: string } }).message.id;
    const same = lines.map((l, i) => [l, i] as const).filter(([l]) => l.includes(`"id":"${id}"`));
    const final = (JSON.parse(same[3][0]) as { message: { usage: { output_tokens: number } } }).message.usage.output_tokens;
    for (const [, i] of same.slice(0, 3)) lines[i] = lines[i].replace(`"output_tokens":${final},`, '"output_tokens":1,');
    const rewritten = lines.join('\n');
    const cut = Buffer.byteLength(lines.slice(0, same[1][1] + 1).join('\n') + '\n');
    writeFileSync(main, rewritten.slice(0, cut));
    await importInto(piecewise, dir);
    const parentOutput = async () =>
      n(
        (
          await piecewise.query<{ o: unknown }>(
            `SELECT output_tokens AS o FROM task_session_parent_usage WHERE task_session_id = '${basename(main, '.jsonl')}'`,
          )
        )[0].o,
      );
    expect(await parentOutput()).toBe(1); // what the run saw of it
    writeFileSync(main, rewritten);
    await importInto(piecewise, dir);
    const [[, expected]] = [...referenceUsage(main)];
    expect(await parentOutput()).toBe(expected.output_tokens);
    expect(
      n(
        (await piecewise.query<{ r: unknown }>(`SELECT requests AS r FROM task_session_parent_usage WHERE task_session_id = '${basename(main, '.jsonl')}'`))[0]
          .r,
      ),
    ).toBe(expected.requests);
  });

  it('malformed lines are counted and skipped with one WARN per file; the rest is imported', async () => {
    const dir = copyRecordings();
    copies.push(dir);
    const agent = filesUnder(dir, /^agent-.*\.jsonl$/)[0];
    const lines = readFileSync(agent, 'utf8').split('\n');
    lines.splice(3, 0, '{"type":"assistant","message":{"id":"broken', '[1,2]');
    writeFileSync(agent, lines.join('\n'));
    const { summary, warns } = await importInto(piecewise, dir);
    expect(summary.malformedLines).toBe(2);
    expect(warns).toEqual([{ msg: expect.stringContaining('not JSON objects') as string, fields: { path: agent, malformed_lines: 2, first_line: 4 } }]);
    const progress = await piecewise.query<{ m: unknown }>(
      `SELECT malformed_lines AS m FROM subagent_context_import_progress WHERE transcript LIKE '%${basename(agent, '.jsonl')}'`,
    );
    expect(n(progress[0].m)).toBe(2);
    await importInto(whole, RECORDED_PROJECTS);
    expect(await outcome(piecewise)).toEqual(await outcome(whole));
  });

  it('a subagent without its sidecar finds its row by agent id; one whose launch is not known yet waits for the next run', async () => {
    const dir = copyRecordings();
    copies.push(dir);
    const main = mainOf(dir);
    const agents = filesUnder(dir, /^agent-.*\.jsonl$/).filter((f) => f.includes(basename(main, '.jsonl')));
    const lonely = agents.find((f) => !readFileSync(f.replace(/\.jsonl$/, '.meta.json'), 'utf8').includes('parentAgentId'))!;
    const sidecar = readFileSync(lonely.replace(/\.jsonl$/, '.meta.json'), 'utf8');
    unlinkSync(lonely.replace(/\.jsonl$/, '.meta.json'));
    const mainText = readFileSync(main);
    truncateSync(main, 0); // the launch not written yet
    const first = await importInto(piecewise, dir);
    expect(first.summary.deferred).toBe(agents.length); // no launch of that session is known yet
    expect(first.warns.find((w) => w.fields.path === lonely)?.msg).toBe(
      'subagent transcript without its sidecar and with no launch naming its agent id yet: left for the next import',
    );
    appendFileSync(main, mainText);
    const second = await importInto(piecewise, dir);
    expect(second.summary.deferred).toBe(0);
    expect(second.warns).toEqual([]);
    const toolUseId = (JSON.parse(sidecar) as { toolUseId: string }).toolUseId;
    const row = await piecewise.query<Record<string, unknown>>(
      `SELECT requests, output_tokens FROM task_session_subagent_usage WHERE tool_call_id = '${toolUseId}' AND task_session_id = '${basename(main, '.jsonl')}'`,
    );
    const [[, expected]] = [...referenceUsage(lonely)];
    expect(row.map((r) => [n(r.requests), n(r.output_tokens)])).toEqual([[expected.requests, expected.output_tokens]]);
  });
});
