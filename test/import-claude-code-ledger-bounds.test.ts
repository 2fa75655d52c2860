// The ledger's sums at their bounds (review of the importer, 2026-12-07): each line's figure is a
// safe integer, but a transcript's sum can pass 2^53 (a number loses its last digits there) and
// the ledger's int64 (PostgreSQL refused the addition, and so the transcript, on every run;
// SQLite's + made the figure REAL). Sums are exact up to int64 and keep its largest value past
// it, in one run or across runs, with no WARN. Both dialects; hostile figures, not Claude Code's.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '44444444-4444-4444-8444-444444444444';
const INT64_MAX = '9223372036854775807';
let n = 0;
/** `count` responses of one model, each reporting the largest safe integer as its input tokens. */
const responses = (count: number) =>
  Array.from({ length: count }, () =>
    JSON.stringify({
      type: 'assistant',
      sessionId: S,
      cwd: '/home/dev/app',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { id: `msg_${n++}`, model: 'claude-x', role: 'assistant', usage: { input_tokens: Number.MAX_SAFE_INTEGER, output_tokens: 1 } },
    }),
  )
    .map((l) => `${l}\n`)
    .join('');

describeBothDialects('import claude-code: the ledger at its bounds', (dialect) => {
  let store: ProxyStore;
  let tree: string;
  let file: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-ledger-bounds-'));
    mkdirSync(join(tree, 'proj'));
    file = join(tree, 'proj', `${S}.jsonl`);
  });
  afterEach(async () => {
    await store.close();
    rmSync(tree, { recursive: true, force: true });
  });
  /** The parent's ledger row as text (a number would round it), and how many requests. */
  const row = async () => {
    const [r] = await store.query<{ input: string; output: string; requests: unknown }>(
      'SELECT CAST(input_tokens AS TEXT) AS input, CAST(output_tokens AS TEXT) AS output, requests FROM task_session_parent_usage',
    );
    return { input: r.input, output: r.output, requests: Number(r.requests) };
  };
  const clean = async () => {
    const run = await importInto(store, tree);
    expect(run.warns).toEqual([]);
    expect(run.summary).toMatchObject({ writeFailed: 0, deferred: 0 });
  };

  it('sums past 2^53 exactly, and keeps the int64 bound once a later run would pass it', async () => {
    appendFileSync(file, responses(3));
    await clean();
    expect(await row()).toEqual({ input: String(3n * BigInt(Number.MAX_SAFE_INTEGER)), output: '3', requests: 3 });
    // 1,100 more responses add 9.9e18: past int64 with what is stored.
    appendFileSync(file, responses(1100));
    await clean();
    expect(await row()).toEqual({ input: INT64_MAX, output: '1103', requests: 1103 });
    appendFileSync(file, responses(2));
    await clean();
    expect(await row()).toEqual({ input: INT64_MAX, output: '1105', requests: 1105 });
    if (dialect === 'sqlite') expect(await store.query('SELECT typeof(input_tokens) AS t FROM task_session_parent_usage')).toEqual([{ t: 'integer' }]);
  });

  it("keeps the bound in a subagent's ledger row too, across runs", async () => {
    const launch = {
      type: 'assistant',
      sessionId: S,
      cwd: '/home/dev/app',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: {
        id: 'msg_launch',
        model: 'claude-x',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_A', name: 'Agent', input: { description: 'd', prompt: 'p' } }],
      },
    };
    appendFileSync(file, `${JSON.stringify(launch)}\n`);
    mkdirSync(join(tree, 'proj', S, 'subagents'), { recursive: true });
    const sub = join(tree, 'proj', S, 'subagents', 'agent-a0123456789abcdef.jsonl');
    writeFileSync(join(tree, 'proj', S, 'subagents', 'agent-a0123456789abcdef.meta.json'), JSON.stringify({ toolUseId: 'toolu_A', agentType: 'x' }));
    const subRow = async () =>
      (await store.query<{ input: string }>("SELECT CAST(input_tokens AS TEXT) AS input FROM task_session_subagent_usage WHERE tool_call_id = 'toolu_A'"))[0]
        ?.input;
    appendFileSync(sub, responses(1000));
    await clean();
    expect(await subRow()).toBe(String(1000n * BigInt(Number.MAX_SAFE_INTEGER)));
    appendFileSync(sub, responses(100));
    await clean();
    expect(await subRow()).toBe(INT64_MAX);
  });

  it('keeps the int64 bound when one run alone sums past it', async () => {
    appendFileSync(file, responses(2200));
    await clean();
    expect(await row()).toEqual({ input: INT64_MAX, output: '2200', requests: 2200 });
  });
});
