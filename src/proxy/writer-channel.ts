// The proxy's end of the IPC channel to the writer process (writer-process.ts; the messages
// are in writer-protocol.ts). Starts the writer below the relay in priority and in its own
// process group, knows when it listens ('hello': nothing sent before it would be lost), counts
// the lines put in its hands, and reports once that it is gone (exited, crashed, unreachable).
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WRITER_CONFIG_ENV, type FromWriter, type ToWriter, type WriterConfig } from './writer-protocol.js';

/** The writer's niceness, the lowest priority (POSIX; Windows maps it to a priority class). */
const WRITER_NICENESS = 19;

/** How long a failed send waits for the writer's exit, which names the cause better (see unreachable). */
const EXIT_GRACE_MS = 1_000;

const WRITER_SCRIPT = fileURLToPath(new URL('./writer-process.js', import.meta.url));

export interface WriterEvents {
  /** Every message but 'hello', which the channel keeps for itself. */
  message(m: Exclude<FromWriter, { type: 'hello' }>): void;
  /** The writer cannot be reached any more; said each time it is found (the caller keeps the first). */
  gone(reason: string): void;
}

export class WriterChannel {
  private readonly child: ChildProcess;
  /** Lines put in the writer's hands: on the channel, or in the hand-over file. */
  sentLines = 0;
  private listening = false;
  private heard: (() => void) | null = null;
  /** A send that failed, waiting for the writer's exit to name the cause (see unreachable). */
  private pendingFailure: { reason: string; timer: NodeJS.Timeout } | null = null;

  constructor(
    config: WriterConfig,
    private readonly events: WriterEvents,
    script = WRITER_SCRIPT, // tests start a stand-in that misbehaves on cue
  ) {
    // Its own process group (detached), so a Ctrl-C meant for the agent does not kill the
    // writer mid-session; it exits by itself when the proxy's IPC channel closes.
    this.child = fork(script, [], {
      env: { ...process.env, [WRITER_CONFIG_ENV]: JSON.stringify(config) }, // never argv: see WRITER_CONFIG_ENV
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      detached: true,
    });
    // Below the relay in CPU priority: on a busy machine the writer waits, the relay does not.
    try {
      if (this.child.pid !== undefined) setPriority(this.child.pid, WRITER_NICENESS);
    } catch {
      // not permitted here: the writer runs at the proxy's priority
    }
    this.child.on('message', (m: FromWriter) => {
      if (m.type !== 'hello') return events.message(m);
      this.listening = true;
      this.heard?.();
    });
    this.child.on('error', (err) => events.gone(`the writer stopped: ${err.message}`));
    // Reported once the channel has handed over every message the writer sent before it died
    // ('disconnect' comes only when none is still being received): a 'done' for a batch it
    // committed must count before its lines are counted as unconfirmed.
    this.child.on('exit', (code, signal) => {
      const gone = () => events.gone(exitReason(code, signal));
      if (!this.child.connected) return gone();
      this.child.once('disconnect', gone);
      setTimeout(gone, 1_000).unref(); // bounded: a channel some other process still holds (events.gone keeps the first)
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Sends `message`; `sent` runs once it is on the channel. A failure is reported as gone. */
  send(message: ToWriter, sent?: () => void): void {
    if (message.type === 'lines') this.sentLines += message.ends.length;
    try {
      this.child.send(message, (err) => {
        if (err) this.unreachable(err);
        else sent?.();
      });
    } catch (err) {
      this.unreachable(err);
    }
  }

  /**
   * A send failed. A writer killed with messages still on their way fails them (EPIPE) before
   * its exit is seen, and "unreachable: write EPIPE" would hide the cause the exit names: so
   * the exit reports it when it comes within EXIT_GRACE_MS (events.gone keeps the first), and
   * this only for a writer still alive then (its channel closed, or broken), or sooner when
   * the proxy cannot wait (reportPendingFailure). What was sent or not is counted when the
   * report comes; nothing is sent meanwhile that could be confirmed.
   */
  private unreachable(err: unknown): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return; // its exit reports
    if (this.pendingFailure) return; // the first failure's cause stands
    const reason = `the writer is unreachable: ${err instanceof Error ? err.message : String(err)}`;
    this.pendingFailure = { reason, timer: setTimeout(() => this.reportPendingFailure(), EXIT_GRACE_MS).unref() };
  }

  /**
   * Reports now a failed send still waiting for the writer's exit: the proxy is about to hand
   * lines over, or stops waiting for the writer, and must count them against the cause known.
   * Whether there was one.
   */
  reportPendingFailure(): boolean {
    const pending = this.pendingFailure;
    if (!pending) return false;
    this.pendingFailure = null;
    clearTimeout(pending.timer);
    // Its exit seen, its channel not drained yet: the exit is the cause (the exit handler would say it later).
    const { exitCode, signalCode } = this.child;
    this.events.gone(exitCode !== null || signalCode !== null ? exitReason(exitCode, signalCode) : pending.reason);
    return true;
  }

  /** Sends `message` and resolves once it is on the channel, or after `ms` whatever happened. */
  sendWithin(message: ToWriter, ms: number): Promise<void> {
    return Promise.race([new Promise<void>((r) => this.send(message, r)), delay(ms)]);
  }

  /** Whether the writer listens, waiting at most `ms` for its 'hello'. */
  async listens(ms: number): Promise<boolean> {
    if (!this.listening) await Promise.race([new Promise<void>((r) => (this.heard = r)), delay(ms)]);
    return this.listening;
  }

  /** Ends a writer that never listened: nothing was sent to it. */
  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Leaves the writer to finish alone: its exit is no longer reported, and the proxy may exit before it. */
  leave(): void {
    this.child.removeAllListeners('exit');
    this.child.removeAllListeners('disconnect');
    if (this.child.connected) this.child.disconnect();
    this.child.unref();
  }
}

const exitReason = (code: number | null, signal: NodeJS.Signals | null) => `the writer exited (${signal ?? code})`;

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
