// Runs one real ACP agent as a child process and drives it with @agentclientprotocol/sdk as
// the client, the way a host does: initialize, session/new, one session/prompt, every
// session/update handed to `onUpdate` in arrival order, every permission request allowed.
// The agent talks only to the scripted Messages API (test/agents/fake-messages-api.ts); the
// caller runs inside a loopback-only network namespace (scripts/test-agents.sh).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream } from '@agentclientprotocol/sdk/unstable';

export interface AgentCommand {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface AgentRun {
  acpSessionId: string;
  stopReason: string;
  stderr: string;
}

export interface RunAgentOptions {
  agent: AgentCommand;
  cwd: string;
  prompt: string;
  /** Further prompts, each sent once the previous turn ended (a multi-prompt session). */
  followUps?: string[];
  /** Awaited after the last turn, before the agent is ended (work it finishes after its turns). */
  beforeEnd?(): Promise<void>;
  /** Advertise the ACP `subagents` client capability (unstable). */
  subagentsCapability?: boolean;
  /** The ACP session id, once session/new has returned (before the prompt). */
  onSession?(acpSessionId: string): void;
  onUpdate(params: { sessionId: string; update: object }): void | Promise<void>;
  /** Work the agent reports after its turn (Qwen Code's background subagents): the run waits for it, within timeoutMs, before ending the agent. */
  settled?(): boolean;
  timeoutMs?: number;
}

/** A fresh HOME with a work file the scripted subagents may Read. */
export function freshHome(prefix: string): { home: string; workFile: string } {
  const home = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const workFile = join(home, 'NOTES.md');
  writeFileSync(workFile, '# notes\nnothing to see\n');
  return { home, workFile };
}

export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { agent } = options;
  // Its own process group: the agent's own children (Claude Code's CLI under the ACP adapter)
  // are ended with it, not left writing into a HOME the caller is about to remove.
  const child = spawn(agent.command, agent.args, { cwd: options.cwd, env: agent.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Updates are applied in arrival order: the SDK does not wait for an async handler.
  let chain: Promise<unknown> = Promise.resolve();
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const app = client()
    .onNotification('session/update', ({ params }) => {
      chain = chain.then(() => options.onUpdate(params as { sessionId: string; update: object }));
    })
    .onRequest('session/request_permission', ({ params }) => {
      const allow = params.options.find((o) => o.kind === 'allow_always') ?? params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    });
  const timeout = options.timeoutMs ?? 120_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = app.connectWith(stream, async (ctx) => {
      await ctx.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, ...(options.subagentsCapability ? { subagents: {} } : {}) },
      } as never);
      const session = await ctx.request('session/new', { cwd: options.cwd, mcpServers: [] });
      options.onSession?.(session.sessionId);
      let response = await ctx.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: options.prompt }] });
      await chain;
      for (const text of options.followUps ?? []) {
        response = await ctx.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text }] });
        await chain;
      }
      while (options.settled && !options.settled()) {
        await sleep(20);
        await chain;
      }
      await options.beforeEnd?.();
      return { acpSessionId: session.sessionId, stopReason: String(response.stopReason), stderr };
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${agent.name}: no end of turn within ${timeout} ms\n${stderr}`)), timeout);
    });
    const result = await Promise.race([run, timedOut]);
    return { ...result, stderr };
  } finally {
    clearTimeout(timer);
    // OpenCode does not exit on stdin EOF: end the process ourselves, and every process it
    // started. Ending the adapter alone left Claude Code's CLI running long enough to write
    // into HOME while runScenario removed it (ENOTEMPTY on rmdir, once in CI).
    await endProcessGroup(child.pid!, exited);
  }
}

/** SIGTERM to the group, SIGKILL after 5 s; resolves once the leader exited and no live member is left. */
async function endProcessGroup(pgid: number, leaderExited: Promise<void>): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const killer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), 5_000);
  try {
    await leaderExited;
    while (liveGroupMembers(pgid) > 0) await sleep(20);
  } finally {
    clearTimeout(killer);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

// kill(-pgid, 0) also answers for zombies, and orphans here may never be reaped (PID 1 of a
// container need not reap), so the group is read from /proc: members not in state Z.
function liveGroupMembers(pgid: number): number {
  let live = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') live += 1;
  }
  return live;
}
