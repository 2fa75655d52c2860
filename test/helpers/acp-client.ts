// A scripted ACP client for the proxy tests: runs a command (the fake agent directly, or the
// proxy in front of it) with piped stdio, sends requests as ndjson (each written in two pieces,
// so the proxy sees partial lines from this side too), answers the agent's own requests
// (session/request_permission, fs/read_text_file) and keeps every byte it sent and received,
// so a direct run and a proxied run can be compared byte for byte.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';

export const FAKE_AGENT = resolve('test/fixtures/fake-acp-agent.mjs');

type Json = Record<string, unknown>;

export interface AcpClientEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Every byte the command wrote on stdout. */
  stdout: Buffer;
  stderr: string;
  /** Every byte this client wrote on the command's stdin. */
  sent: Buffer;
}

export class AcpClient {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly out: Buffer[] = [];
  private readonly sentBytes: Buffer[] = [];
  private stderrText = '';
  private readonly pieces: Buffer[] = [];
  private nextId = 1;
  private readonly waiting = new Map<number, (m: Json) => void>();
  private readonly notifications: Json[] = [];
  readonly exited: Promise<AcpClientEnd>;

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stdin.on('error', () => {}); // the command may exit before reading everything
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderrText += d));
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.exited = new Promise((resolvePromise, reject) => {
      this.child.on('error', reject);
      this.child.on('close', (code, signal) =>
        resolvePromise({ code, signal, stdout: Buffer.concat(this.out), stderr: this.stderrText, sent: Buffer.concat(this.sentBytes) }),
      );
    });
  }

  /** The notifications received so far with this method. */
  received(method: string): Json[] {
    return this.notifications.filter((n) => n.method === method);
  }

  // A line's pieces are kept until its newline arrives, then joined once: joining every chunk
  // onto what was pending copied a 2 MB line again per 64 KB read (the relay tests' huge prompt).
  private onData(chunk: Buffer): void {
    this.out.push(chunk);
    let rest = chunk;
    for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
      this.pieces.push(rest.subarray(0, nl));
      const text = Buffer.concat(this.pieces).toString('utf8');
      this.pieces.length = 0;
      rest = rest.subarray(nl + 1);
      let message: Json;
      try {
        message = JSON.parse(text) as Json;
      } catch {
        continue; // the fake agent's deliberate non-JSON line
      }
      this.dispatch(message);
    }
    if (rest.length) this.pieces.push(rest);
  }

  private dispatch(m: Json): void {
    if (m.method === undefined) {
      this.waiting.get(m.id as number)?.(m);
      this.waiting.delete(m.id as number);
    } else if (m.id !== undefined) {
      // The agent's requests, answered as an editor would.
      const result = m.method === 'fs/read_text_file' ? { content: 'const a = 1; // ✓ ünïcödé' } : { outcome: { outcome: 'selected', optionId: 'allow' } };
      this.write(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result })}\n`));
    } else {
      this.notifications.push(m);
    }
  }

  private writing = Promise.resolve();

  /** Writes bytes in two pieces, a turn of the event loop apart (writes queue, never interleave). */
  write(bytes: Buffer): void {
    this.sentBytes.push(bytes);
    const cut = Math.max(1, Math.floor(bytes.length / 3));
    this.writing = this.writing.then(async () => {
      this.child.stdin.write(bytes.subarray(0, cut));
      await new Promise((r) => setImmediate(r));
      this.child.stdin.write(bytes.subarray(cut));
    });
  }

  request(method: string, params: unknown): Promise<Json> {
    const id = this.nextId++;
    const answer = new Promise<Json>((r) => this.waiting.set(id, r));
    this.write(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`));
    return answer;
  }

  end(): Promise<AcpClientEnd> {
    void this.writing.then(() => this.child.stdin.end());
    return this.exited;
  }
}

/** The session every relay test plays: init, a new session, a fan-out prompt, a huge prompt, garbage bytes, a load, EOF. */
export async function playSession(client: AcpClient): Promise<AcpClientEnd> {
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } });
  const created = await client.request('session/new', { cwd: '/work/project-a', mcpServers: [] });
  const sessionId = (created.result as Json).sessionId as string;
  await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'review the diff' }] });
  const huge = 'y'.repeat(2 * 1024 * 1024);
  await client.request('session/prompt', {
    sessionId,
    prompt: [
      { type: 'text', text: 'plain' },
      { type: 'resource', resource: { uri: 'file:///big', text: huge } },
    ],
  });
  client.write(Buffer.from([0xff, 0xfe, 0x00, 0x0d, 0x0a]));
  await client.request('session/load', { sessionId, cwd: '/work/project-a', mcpServers: [] });
  return client.end();
}
