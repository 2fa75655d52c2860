// The import against a peer: ccusage (the widely used usage reporter, a devDependency, run
// --offline under Bun: ccusage 19 needs Node 22 or Bun) reads the same transcript folder, and
// its per-session token totals equal the import's — the parent's own usage plus every
// subagent's ledger rows — figure for figure.
// Lines of one response that disagree (older Claude Code wrote output_tokens 1 on every line but
// the last) agree here too: ccusage 19 keeps the line of a message id with the largest total,
// the import the largest of each figure — the last line's, both ways (second test).
// One deliberate difference, named: ccusage deduplicates responses across ALL files, the import
// within one transcript (memory bounded by a transcript, not by the history). A session file
// that repeats another's responses (an older Claude Code's resume copied the conversation into
// the new session's file) counts in both sessions here and once in ccusage (third test;
// docs/claude-code.md).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { filesUnder, importInto, RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { run } from './helpers/run-command.js';
import { describeBothDialects } from './helpers/test-db.js';

const ROOT = join(import.meta.dirname, '..');
// Bun's binary from its platform package: package.json's allowScripts keeps bun's postinstall
// (which would copy it over the `bun` placeholder in node_modules/.bin) from running.
const BUN = join(ROOT, 'node_modules', '@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun');
const FIGURES = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheCreationTokens'] as const;
type Totals = Record<(typeof FIGURES)[number], number>;

/** ccusage's per-session totals for a projects folder. */
async function ccusage(projects: string): Promise<Map<string, Totals>> {
  const configDir = mkdtempSync(join(tmpdir(), 'ccusage-config-'));
  cpSync(projects, join(configDir, 'projects'), { recursive: true });
  const home = mkdtempSync(join(tmpdir(), 'ccusage-home-'));
  try {
    const result = await run(BUN, [join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js'), 'session', '--offline', '--json'], {
      cwd: home,
      env: { CLAUDE_CONFIG_DIR: configDir, HOME: home, NO_COLOR: '1' },
      timeoutMs: 60_000,
    });
    expect(result.code, result.output).toBe(0);
    const parsed = JSON.parse(result.stdout) as { session: ({ period: string } & Totals)[] };
    return new Map(parsed.session.map((s) => [s.period, Object.fromEntries(FIGURES.map((f) => [f, s[f]])) as Totals]));
  } finally {
    rmSync(configDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** The import's per-session totals: the parent's own usage plus every subagent's ledger rows. */
async function imported(store: ProxyStore): Promise<Map<string, Totals>> {
  const rows = await store.query<Record<string, unknown>>(
    `SELECT task_session_id, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens FROM task_session_parent_usage
     UNION ALL
     SELECT task_session_id, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens FROM task_session_subagent_usage`,
  );
  const out = new Map<string, Totals>();
  for (const r of rows) {
    const t = out.get(r.task_session_id as string) ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
    t.inputTokens += Number(r.input_tokens ?? 0);
    t.outputTokens += Number(r.output_tokens ?? 0);
    t.cacheReadTokens += Number(r.cache_read_input_tokens ?? 0);
    t.cacheCreationTokens += Number(r.cache_creation_input_tokens ?? 0);
    out.set(r.task_session_id as string, t);
  }
  return out;
}

describeBothDialects('import claude-code against ccusage', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('per-session token totals equal ccusage --offline on the recorded folder (parent plus subagents)', async () => {
    await importInto(store, RECORDED_PROJECTS);
    const ours = await imported(store);
    const theirs = await ccusage(RECORDED_PROJECTS);
    expect(ours.size).toBe(2);
    expect(ours).toEqual(theirs);
    // Not vacuous: the subagents are most of each session's tokens.
    for (const t of ours.values()) expect(t.inputTokens).toBeGreaterThan(0);
  }, 120_000);

  it('lines of one response that disagree (output_tokens 1 on all but the last): both count the last line, the response once', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'claude-older-'));
    cpSync(RECORDED_PROJECTS, copy, { recursive: true });
    // The review session's first response is four lines (four parallel launches): rewrite the
    // first three as an older Claude Code wrote them.
    const main = filesUnder(copy, /^[0-9a-f-]{36}\.jsonl$/).find((f) => readFileSync(f, 'utf8').includes('FOLLOW-UP-LAUNCH'))!;
    const lines = readFileSync(main, 'utf8').split('\n');
    const id = (JSON.parse(lines[lines.findIndex((l) => l.includes('"type":"assistant"'))]) as { message: { id: string } }).message.id;
    const sameId = lines.map((l, i) => [l, i] as const).filter(([l]) => l.includes(`"id":"${id}"`));
    expect(sameId).toHaveLength(4);
    const finalOutput = (JSON.parse(sameId[3][0]) as { message: { usage: { output_tokens: number } } }).message.usage.output_tokens;
    expect(finalOutput).toBeGreaterThan(1);
    for (const [, i] of sameId.slice(0, 3)) lines[i] = lines[i].replace(`"output_tokens":${finalOutput},`, '"output_tokens":1,');
    writeFileSync(main, lines.join('\n'));
    try {
      await importInto(store, copy);
      const ours = await imported(store);
      expect(ours).toEqual(await ccusage(copy));
      expect(ours).toEqual(await ccusage(RECORDED_PROJECTS)); // the final figure, as if every line had it
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);

  it('the named difference: a session file repeating the responses of another counts in both sessions here, once in ccusage', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'claude-resumed-'));
    cpSync(RECORDED_PROJECTS, copy, { recursive: true });
    const pair = filesUnder(copy, /^[0-9a-f-]{36}\.jsonl$/).find((f) => !readFileSync(f, 'utf8').includes('FOLLOW-UP-LAUNCH'))!;
    const pairId = basename(pair, '.jsonl');
    const resumedId = '00000000-0000-4000-8000-000000000001';
    writeFileSync(join(pair, '..', `${resumedId}.jsonl`), readFileSync(pair, 'utf8').replaceAll(pairId, resumedId));
    try {
      await importInto(store, copy);
      const ours = await imported(store);
      const theirs = await ccusage(copy);
      const parentOnly = (
        await store.query<Record<string, unknown>>(`SELECT output_tokens FROM task_session_parent_usage WHERE task_session_id = '${pairId}'`)
      )[0];
      const repeated = Number(parentOnly.output_tokens);
      expect(ours.get(resumedId)!.outputTokens).toBe(repeated); // its own: the parent's responses, again
      // ccusage gives the repeated responses to whichever file it read first, once.
      const sum = (m: Map<string, Totals>) => m.get(pairId)!.outputTokens + (m.get(resumedId)?.outputTokens ?? 0);
      expect(sum(ours) - sum(theirs)).toBe(repeated);
      expect(repeated).toBeGreaterThan(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
