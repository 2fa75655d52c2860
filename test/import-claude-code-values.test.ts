// Values of a transcript line that one dialect would store and the other refuse, or that the store
// would refuse on both: each is read by the store's own rules (src/identity.ts), so one odd line
// never leaves its transcript deferred forever, and both dialects store the same rows.
// - a NUL in cwd, promptId, message.model or message.id (PostgreSQL text cannot hold it);
// - a timestamp outside 1970–9999 (the store's instants): read as a line without one;
// - a cwd the store cannot record as a task id (over 512 UTF-8 bytes): the project folder's name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto, type ImportRun } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '11111111-1111-4111-8111-111111111111';
type Line = Record<string, unknown>;

/** The instant of the i-th line of a transcript: one second apart. */
const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

/** A prompt, a response, a launch of toolu_A and its result, a second response: the shapes Claude Code writes. */
function transcript(): Line[] {
  const base = (i: number) => ({ sessionId: S, cwd: '/work/proj', promptId: 'p1', timestamp: stamp(i) });
  const assistant = (i: number, id: string, content: unknown[]) => ({
    ...base(i),
    type: 'assistant',
    message: { id, model: 'claude-x', role: 'assistant', usage: { input_tokens: 10, output_tokens: 5 }, content },
  });
  return [
    { ...base(0), type: 'user', message: { role: 'user', content: 'go' } },
    assistant(1, 'm0', [{ type: 'text', text: 'x' }]),
    assistant(2, 'm1', [{ type: 'tool_use', id: 'toolu_A', name: 'Agent', input: { description: 'Review', subagent_type: 'general-purpose' } }]),
    {
      ...base(3),
      type: 'user',
      toolUseResult: { status: 'completed', agentId: 'aaa', agentType: 'general-purpose', totalTokens: 42 },
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'done' }] },
    },
    assistant(4, 'm2', [{ type: 'text', text: 'y' }]),
  ];
}

const jsonl = (lines: Line[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');
/** A timestamp column as an ISO instant, whichever form the driver returns. */
const iso = (v: unknown) => (v instanceof Date ? v : new Date(String(v).replace(' ', 'T'))).toISOString();

describeBothDialects('import claude-code: line values by the store’s rules', (dialect) => {
  let target: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    target = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-values-'));
  });
  afterEach(async () => {
    await target.close();
    rmSync(tree, { recursive: true, force: true });
  });

  const importLines = async (lines: Line[]): Promise<ImportRun> => {
    mkdirSync(join(tree, 'proj'), { recursive: true });
    writeFileSync(join(tree, 'proj', `${S}.jsonl`), jsonl(lines));
    return importInto(target, tree);
  };
  /** Imported whole, its two launch rows written: nothing deferred, nothing failed. */
  const expectImported = (run: ImportRun) => expect(run.summary).toMatchObject({ transcripts: 1, lines: 5, frames: 2, failedFrames: 0, deferred: 0 });

  it('a NUL in the cwd: the session is filed under its project folder’s name, WARNed once, its launch recorded', async () => {
    const run = await importLines(transcript().map((l) => ({ ...l, cwd: '/work/a\u0000b' })));
    expectImported(run);
    expect(run.warns).toEqual([
      {
        msg: "the session's task id cannot be stored: its project folder's name is the task instead",
        fields: expect.objectContaining({ session_id: S, task_id: 'proj', reason: expect.stringContaining('NUL') }) as unknown,
      },
    ]);
    expect(await target.query('SELECT id, task_id FROM task_sessions')).toEqual([{ id: S, task_id: 'proj' }]);
    expect(await target.query('SELECT tool_call_id, task_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'toolu_A', task_id: 'proj' }]);
  });

  it('a NUL in the promptId: no turn, on the subagent row and on its message row alike', async () => {
    const run = await importLines(transcript().map((l) => ({ ...l, promptId: 'p\u00001' })));
    expectImported(run);
    expect(run.warns).toEqual([]);
    expect(await target.query('SELECT turn_id FROM task_session_subagents')).toEqual([{ turn_id: null }]);
    expect(await target.query('SELECT turn_id FROM task_session_messages')).toEqual([{ turn_id: null }]);
  });

  it('a NUL in message.model: the responses count under the ledger’s unknown model', async () => {
    const lines = transcript().map((l) => (l.type === 'assistant' ? { ...l, message: { ...(l.message as Line), model: 'claude\u0000x' } } : l));
    const run = await importLines(lines);
    expectImported(run);
    const usage = await target.query<{ model: string; requests: unknown }>('SELECT model, requests FROM task_session_parent_usage');
    expect(usage.map((u) => [u.model, Number(u.requests)])).toEqual([['unknown', 3]]);
    const [progress] = await target.query<{ last_model: string }>('SELECT last_model FROM subagent_context_import_progress');
    expect(progress.last_model).toBe('unknown');
  });

  it('a NUL in the last response’s message.id: read as a line without one (not counted), the rest imported', async () => {
    const lines = transcript();
    lines[4] = { ...lines[4], message: { ...(lines[4].message as Line), id: 'm\u00002' } };
    const run = await importLines(lines);
    expectImported(run);
    const usage = await target.query<{ requests: unknown }>('SELECT requests FROM task_session_parent_usage');
    expect(usage.map((u) => Number(u.requests))).toEqual([2]);
    const [progress] = await target.query<{ last_message_id: string }>('SELECT last_message_id FROM subagent_context_import_progress');
    expect(progress.last_message_id).toBe('m1');
  });

  for (const outside of ['0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '1969-12-31T23:59:59Z'])
    it(`a line stamped ${outside} (outside 1970–9999) is read as a line without a timestamp`, async () => {
      const lines = transcript();
      lines[0].timestamp = outside; // the session's first line: the session starts at the next one
      lines[2].timestamp = outside; // the launch: it takes the previous line's instant
      const run = await importLines(lines);
      expectImported(run);
      const [session] = await target.query<{ created_at: unknown }>('SELECT created_at FROM task_sessions');
      expect(iso(session.created_at)).toBe(stamp(1));
      const [row] = await target.query<{ observed_at: unknown; settled_at: unknown }>('SELECT observed_at, settled_at FROM task_session_subagents');
      expect([iso(row.observed_at), iso(row.settled_at)]).toEqual([stamp(1), stamp(3)]);
      const [message] = await target.query<{ created_at: unknown }>('SELECT created_at FROM task_session_messages');
      expect(iso(message.created_at)).toBe(stamp(1));
    });

  it('a cwd over 512 UTF-8 bytes: the session is filed under its project folder’s name, WARNed once; its subagent’s rows and run are imported', async () => {
    const cwd = '/home/u/' + '项目'.repeat(90); // 188 characters, 548 UTF-8 bytes
    const main: Line[] = transcript().map((l) => ({ ...l, cwd }));
    const subagents = join(tree, 'proj', S, 'subagents');
    mkdirSync(subagents, { recursive: true });
    const own = { ...main[1], message: { ...(main[1].message as Line), id: 'm-sub', usage: { input_tokens: 300, output_tokens: 400 } } };
    writeFileSync(join(subagents, 'agent-aaa.jsonl'), jsonl([{ ...main[0], content: 'x' }, own]));
    writeFileSync(join(subagents, 'agent-aaa.meta.json'), JSON.stringify({ agentType: 'general-purpose', toolUseId: 'toolu_A', spawnDepth: 1 }));
    const run = await importLines(main);
    expect(run.summary).toMatchObject({ transcripts: 2, failedFrames: 0, deferred: 0 });
    expect(run.warns).toEqual([
      {
        msg: "the session's task id cannot be stored: its project folder's name is the task instead",
        fields: expect.objectContaining({
          session_id: S,
          task_id: 'proj',
          reason: 'the cwd cannot be a task id: it is longer than 512 UTF-8 bytes',
        }) as unknown,
      },
    ]);
    expect(await target.query('SELECT task_id FROM task_sessions')).toEqual([{ task_id: 'proj' }]);
    expect(await target.query('SELECT tool_call_id, agent_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'toolu_A', agent_id: 'aaa' }]);
    const ledger = await target.query<{ tool_call_id: string; output_tokens: unknown }>('SELECT tool_call_id, output_tokens FROM task_session_subagent_usage');
    expect(ledger.map((r) => [r.tool_call_id, Number(r.output_tokens)])).toEqual([['toolu_A', 400]]);
    const again = await importInto(target, tree);
    expect(again.summary).toMatchObject({ transcripts: 0, deferred: 0 });
    expect(again.warns).toEqual([]);
  });
});
