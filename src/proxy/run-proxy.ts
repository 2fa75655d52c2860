// `subagent-context proxy -- <agent command>`: spawns the agent and stands between it and the
// client (an editor) on stdio, invisibly — both directions relayed byte for byte (relay.ts),
// the agent's stderr inherited untouched, the client's EOF passed on, SIGINT/SIGTERM/SIGHUP
// forwarded — while a copy of the traffic feeds the recorder in a writer process (tee.ts). The
// proxy ends as the agent did: its exit code, or the same signal raised on itself.
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { join } from 'node:path';
import { MAX_TIMER_MS } from '../max-timer.js';
import { defaultDataDir } from './data-dir.js';
import { targetMasker } from './target-secrets.js';
import { RateLimitedWarn } from './rate-limited-warn.js';
import { relay } from './relay.js';
import { DEFAULT_TEE_LIMITS, Tee, type TeeLimits, type TeeSummary } from './tee.js';
import type { ProxyTarget } from './writer-protocol.js';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface ProxyOptions {
  command: string;
  args: readonly string[];
  target: ProxyTarget;
  /** Where the store is, for the one line printed at start (a URL without its password). */
  where: string;
  task?: string;
  limits?: TeeLimits;
  /** How long the proxy waits for the writer after the agent exits before leaving it to
   * finish in the background (default 1 s, or SUBAGENT_CONTEXT_PROXY_DRAIN_MS). */
  drainMs?: number;
  /** The background writer's time cap (default 60 s, or SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS). */
  backgroundMs?: number;
  /** Where the background writer appends its outcome (default proxy.log in the data
   * directory, or SUBAGENT_CONTEXT_PROXY_LOG). */
  logFile?: string;
  warnIntervalMs?: number;
}

export type ProxyEnd = { code: number; signal: null } | { code: null; signal: NodeJS.Signals };

const envMs = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

function summaryLine(s: TeeSummary, backgroundMs: number, logFile: string): string | null {
  const lost =
    s.dropped + s.unwritten + s.writerLost + s.writerUnconfirmed + s.oversize + s.failed + s.recognizerErrors + s.unrecognizedDelegations + s.ledgerFailed;
  if (lost === 0 && s.background === 0) return null;
  const parts = [
    s.background &&
      `${s.background} lines left to the writer, which finishes them in the background (at most ${backgroundMs < 1000 ? `${backgroundMs} ms` : `${Math.round(backgroundMs / 1000)} s`}) and appends the outcome to ${logFile}`,
    s.dropped && `${s.dropped} lines dropped (the queue was full)`,
    s.unwritten && `${s.unwritten} lines not written when the writer's time ran out`,
    s.writerLost && `${s.writerLost} lines not recorded: ${s.writerGone ?? 'the writer stopped'}`,
    s.writerUnconfirmed && `${s.writerUnconfirmed} lines recorded or not: ${s.writerGone ?? 'the writer stopped'} before confirming them`,
    s.oversize && `${s.oversize} oversize lines not parsed`,
    s.failed && `${s.failed} writes failed`,
    s.recognizerErrors && `${s.recognizerErrors} recognizer errors`,
    s.ledgerFailed && `${s.ledgerFailed} usage-ledger rows not written (their subagent rows are)`,
    s.unrecognizedDelegations &&
      `${s.unrecognizedDelegations} tool calls looked like subagent launches of an agent this version does not recognise (not recorded)`,
  ].filter(Boolean);
  return `subagent-context proxy: ${s.written} writes recorded; ${parts.join(', ')}\n`;
}

/** Runs the agent behind the proxy until it exits; resolves with how it ended. */
export async function runProxy(options: ProxyOptions): Promise<ProxyEnd> {
  // A driver's message may echo what it was given (an sslkey path in ENOENT): every line this
  // proxy prints (its WARNs, the writer's, the summary) is masked as the CLI's errors are.
  const mask = targetMasker(options.target);
  const stderr = (text: string) => void process.stderr.write(mask(text));
  const warn = new RateLimitedWarn(stderr, options.warnIntervalMs ?? 10_000);
  stderr(`subagent-context proxy: recording subagents to ${options.where}\n`);
  const child = spawn(options.command, options.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const backgroundMs = Math.min(options.backgroundMs ?? envMs('SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS', 60_000), MAX_TIMER_MS);
  const logFile = options.logFile ?? (process.env.SUBAGENT_CONTEXT_PROXY_LOG || join(defaultDataDir(), 'proxy.log'));
  const tee = new Tee(
    { target: options.target, executionId: randomUUID(), task: options.task, fallbackCwd: process.cwd(), logFile, backgroundMs, proxyPid: process.pid },
    warn,
    options.limits ?? DEFAULT_TEE_LIMITS,
  );

  const forward = new Map(FORWARDED_SIGNALS.map((sig) => [sig, () => void child.kill(sig)]));
  for (const [sig, handler] of forward) process.on(sig, handler);

  relay(process.stdin, child.stdin, (c) => tee.fromClient.push(c), true, {
    onEnd: () => {},
    onDestError: () => {}, // the agent closed its stdin or exited: the client's further bytes have no reader
  });
  relay(child.stdout, process.stdout, (c) => tee.fromAgent.push(c), false, {
    onEnd: () => {},
    onDestError: () => child.stdout.destroy(), // the client is gone: the agent meets a closed pipe, as it would without us
  });

  const end = await new Promise<ProxyEnd>((resolve) => {
    child.on('error', (err: NodeJS.ErrnoException) => {
      stderr(`subagent-context proxy: cannot start ${JSON.stringify(options.command)}: ${err.code ?? err.message}\n`);
      resolve({ code: err.code === 'ENOENT' ? 127 : 126, signal: null });
    });
    child.on('exit', () => closeWhenIdle(child.stdout));
    child.on('close', (code, signal) => resolve(signal ? { code: null, signal } : { code: code ?? 0, signal: null }));
  });

  process.stdin.destroy(); // nothing reads the client any more; stop holding the event loop open
  const summary = await tee.close(Math.min(options.drainMs ?? envMs('SUBAGENT_CONTEXT_PROXY_DRAIN_MS', 1_000), MAX_TIMER_MS), backgroundMs);
  const line = summaryLine(summary, backgroundMs, logFile);
  if (line) stderr(line);
  for (const [sig, handler] of forward) process.off(sig, handler);
  return end;
}

/** How long the agent's stdout may stay open and idle after the agent exited before the proxy stops reading it. */
const AFTER_EXIT_IDLE_MS = 200;

/**
 * The agent has exited, but a process it started may hold its stdout open (a shell agent's
 * `cmd &`), and the proxy ends when that pipe closes. Whatever the agent wrote is read first:
 * the pipe is let go only once nothing came for AFTER_EXIT_IDLE_MS and the relay is not waiting
 * on a slow client.
 */
function closeWhenIdle(stdout: Readable): void {
  let last = performance.now();
  stdout.on('data', () => void (last = performance.now()));
  const timer = setInterval(() => {
    if (stdout.destroyed) clearInterval(timer);
    else if (!stdout.isPaused() && performance.now() - last >= AFTER_EXIT_IDLE_MS) {
      clearInterval(timer);
      stdout.destroy();
    }
  }, AFTER_EXIT_IDLE_MS / 4);
}

const UNRAISED_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGUSR1', 'SIGPIPE']);

/** Ends this process the way the agent ended: the same exit code, or the same signal. */
export function endLikeTheAgent(end: ProxyEnd): number {
  if (end.signal === null) return end.code;
  // Not raised on ourselves where Node would not end by it: SIGUSR1 opens its inspector (a debug
  // port), SIGPIPE is ignored. The shell's code for a death by that signal instead.
  if (!UNRAISED_SIGNALS.has(end.signal)) process.kill(process.pid, end.signal); // no handler is left: the default action ends us
  return 128 + (constants.signals[end.signal] ?? 0); // only if the signal does not end us
}
