// `subagent-context proxy -- <agent>` as the editor and the agent see it: the built binary in
// front of a scripted ACP agent (test/fixtures/fake-acp-agent.mjs), driven by a scripted client
// (test/helpers/acp-client.ts). Every relayed byte is compared with a direct run of the same
// session — both directions (the agent reports a digest of what it read), partial lines,
// lines split across chunks, a 3 MiB and a 2 MiB line, bytes that are not UTF-8, the agent's own
// requests — and the agent's exit code and signals come out of the proxy unchanged.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AcpClient, playSession, type AcpClientEnd } from './helpers/acp-client.js';
import { assertBuilt, CLI } from './helpers/cli.js';
import { directAgent, openProxyStore, proxiedAgent, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const stderrLines = (end: AcpClientEnd) => end.stderr.split('\n').filter(Boolean);

/** Starts a session and a prompt the agent never answers, so a signal finds it mid-turn. */
async function hangingTurn(client: AcpClient): Promise<void> {
  await client.request('initialize', { protocolVersion: 1 });
  const created = await client.request('session/new', { cwd: '/work/p', mcpServers: [] });
  void client.request('session/prompt', { sessionId: (created.result as { sessionId: string }).sessionId, prompt: [{ type: 'text', text: 'hang' }] });
  await new Promise((r) => setTimeout(r, 300)); // the prompt reaches the agent
}

describeBothDialects('proxy: relay', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('relays a whole session byte for byte in both directions, as a direct run', async () => {
    const direct = await playSession(directAgent());
    const proxied = await playSession(proxiedAgent(store.args));
    expect(direct.code).toBe(0);
    expect(proxied.code, proxied.stderr).toBe(0);
    expect(proxied.stdout.length).toBe(direct.stdout.length);
    expect(proxied.stdout.length).toBeGreaterThan(3 * 1024 * 1024); // the huge line made it
    expect(sha256(proxied.stdout)).toBe(sha256(direct.stdout));
    expect(proxied.stdout.includes(Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x0d, 0xc3, 0x28, 0x7d, 0x0a]))).toBe(true);
    // Client → agent: the agent's digest of what it read is the digest of what the client sent.
    const digest = JSON.parse(proxied.stdout.toString('utf8').trimEnd().split('\n').at(-1) ?? '{}') as { params: { sha256: string; bytes: number } };
    expect(digest.params).toEqual({ sha256: sha256(proxied.sent), bytes: proxied.sent.length });
    expect(proxied.sent.length).toBeGreaterThan(2 * 1024 * 1024);
    // stderr: the store, said once, and nothing else (no WARN, nothing lost).
    expect(stderrLines(proxied)).toEqual([expect.stringMatching(new RegExp(`^subagent-context proxy: recording subagents to ${dialect} \\S+$`))]);
  });

  it("exits with the agent's exit code", async () => {
    const env = { FAKE_AGENT_EXIT_CODE: '5' };
    const direct = await playSession(directAgent(env));
    const proxied = await playSession(proxiedAgent(store.args, env));
    expect(direct.code).toBe(5);
    expect(proxied).toMatchObject({ code: 5, signal: null });
  });

  it('forwards SIGTERM and ends by the same signal when the agent dies of it', async () => {
    const client = proxiedAgent(store.args);
    await hangingTurn(client);
    client.child.kill('SIGTERM');
    expect(await client.exited).toMatchObject({ code: null, signal: 'SIGTERM' });
  });

  it('forwards SIGHUP', async () => {
    const client = proxiedAgent(store.args);
    await hangingTurn(client);
    client.child.kill('SIGHUP');
    expect(await client.exited).toMatchObject({ code: null, signal: 'SIGHUP' });
  });

  it("forwards SIGINT to an agent that handles it, relays what it says, and exits with the agent's code", async () => {
    const client = proxiedAgent(store.args);
    await hangingTurn(client);
    client.child.kill('SIGINT');
    const end = await client.exited;
    expect(end).toMatchObject({ code: 42, signal: null });
    expect(client.received('_fake/signal')).toEqual([{ jsonrpc: '2.0', method: '_fake/signal', params: { signal: 'SIGINT' } }]);
  });

  it('an agent command that cannot start: exit 127 and one line saying why', async () => {
    const client = new AcpClient(process.execPath, [CLI, 'proxy', ...store.args, '--', '/nonexistent/agent', 'acp']);
    const end = await client.end();
    expect(end.code).toBe(127);
    expect(end.stderr).toMatch(/cannot start "\/nonexistent\/agent": ENOENT/);
  });

  it('no agent command: a usage error (exit 2) before anything starts', async () => {
    const end = await new AcpClient(process.execPath, [CLI, 'proxy', ...store.args]).end();
    expect(end.code).toBe(2);
    expect(end.stderr).toMatch(/^subagent-context: an agent command is required after `--`/);
  });
});

// The default store is SQLite by definition (no database option), so this one runs once.
describe('proxy: the default store', () => {
  it('without a database option: sessions.db in $XDG_DATA_HOME/subagent-context, created, said once on stderr', async () => {
    const data = mkdtempSync(join(tmpdir(), 'subagent-context-xdg-'));
    try {
      const end = await playSession(proxiedAgent([], { XDG_DATA_HOME: data }));
      const file = join(data, 'subagent-context', 'sessions.db');
      expect(end.code, end.stderr).toBe(0);
      expect(end.stderr).toBe(`subagent-context proxy: recording subagents to sqlite ${file}\n`);
      const db = new Database(file, { readonly: true, fileMustExist: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get()).toEqual({ n: 3 });
      db.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
