// `subagent-context migrate`'s view of the backfill while it runs (issue 32 item 4), on stderr
// so stdout keeps the report (and --json its JSON). On a terminal: one line redrawn in place,
// a bar with the sessions walked, messages scanned, rows written, the rate and an ETA (on
// SQLite first a bar of the messages its first phase reads, then the sessions'; on PostgreSQL
// a bar of the messages its windows read). Anywhere else (a log file, CI, a pipe): plain lines,
// one every few seconds while it runs and one at the end, and nothing at all for a backfill
// with no session to walk (no message, for windows), so a short upgrade leaves
// a log as it was. The figures come from runMigrations({ onBackfillProgress }) after each
// chunk; the rate and the ETA from the backfill's own clock (`ms`), so the output is a function
// of the progress reports and the tests can drive it with any figures.
import type { BackfillProgress } from '../types.js';

/** Where the bar is drawn: stderr, or a test's stand-in. */
export interface ProgressTerminal {
  write(text: string): void;
  /** A terminal: redraw one line. Otherwise: plain lines. */
  readonly isTTY: boolean;
  /** Its width, when known: a drawn line never wraps. */
  readonly columns?: number;
}

export interface ProgressBarOptions {
  /** The throttle's clock (ms); the figures use the reports' own `ms`. */
  readonly now?: () => number;
  /** A terminal's line is redrawn at most this often (the last chunk always). */
  readonly redrawEveryMs?: number;
  /** Elsewhere, a plain line at most this often while the backfill runs. */
  readonly plainEveryMs?: number;
}

export interface BackfillProgressBar {
  /** One chunk's report (runMigrations' onBackfillProgress). */
  update(progress: BackfillProgress): void;
  /** The pass is over: ends a drawn line the last chunk did not end (a failed chunk). */
  end(): void;
}

const BAR_WIDTH = 24;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** 75 s → '1:15', 4000 s → '1:06:40'. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** Under a minute in seconds ('3.2 s'), else as formatDuration. */
const took = (ms: number) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms));

/** A phase whose done fraction is of messages: SQLite's first phase, PostgreSQL's windows. */
const byMessages = (p: BackfillProgress) => p.phase !== 'sessions';

/** The done fraction: of the messages SQLite's first phase or PostgreSQL's windows read, or of the sessions to walk (1 when there were none). */
function fraction(p: BackfillProgress): number {
  if (byMessages(p)) return p.messagesToScan > 0 ? Math.min(1, p.messagesScanned / p.messagesToScan) : 0;
  return p.sessionsToWalk > 0 ? Math.min(1, p.sessions / p.sessionsToWalk) : 1;
}

function rate(p: BackfillProgress): string {
  return p.ms > 0 ? `${int((p.messagesScanned * 1000) / p.ms)} messages/s` : '— messages/s';
}

/**
 * Time left at this run's pace so far, per session; unknown before the first session. In
 * SQLite's first phase, the phase's own time left, per message read: the sessions come after.
 */
function eta(p: BackfillProgress): string {
  if (p.done) return 'done';
  if (p.phase === 'windows') {
    if (p.messagesScanned === 0 || p.messagesToScan <= p.messagesScanned) return 'ETA —';
    return `ETA ${formatDuration((p.phaseMs * (p.messagesToScan - p.messagesScanned)) / p.messagesScanned)}`;
  }
  if (p.phase === 'stage') {
    if (p.messagesScanned === 0 || p.messagesToScan <= p.messagesScanned) return 'ETA —';
    return `reading ETA ${formatDuration((p.phaseMs * (p.messagesToScan - p.messagesScanned)) / p.messagesScanned)}`;
  }
  if (p.sessions === 0 || p.sessionsToWalk <= p.sessions) return 'ETA —';
  return `ETA ${formatDuration((p.phaseMs * (p.sessionsToWalk - p.sessions)) / p.sessions)}`;
}

/** A terminal's line: the bar first, the figures after it. */
export function drawnLine(p: BackfillProgress): string {
  const f = fraction(p);
  const filled = Math.round(f * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  const percent = `${String(Math.floor(f * 100)).padStart(3)}%`;
  const walked =
    p.phase === 'stage'
      ? [`reading messages ${int(p.messagesScanned)}/${int(Math.max(p.messagesScanned, p.messagesToScan))}`]
      : p.phase === 'windows'
        ? [`${int(p.messagesScanned)}/${int(Math.max(p.messagesScanned, p.messagesToScan))} messages`]
        : [`${int(p.sessions)}/${int(Math.max(p.sessions, p.sessionsToWalk))} sessions`, `${int(p.messagesScanned)} messages scanned`];
  const figures = [...walked, `${int(p.rowsWritten)} rows written`, rate(p), p.done ? `done in ${took(p.ms)}` : eta(p)];
  return `backfill ${bar} ${percent} ${figures.join(' · ')}`;
}

/** A line for a log: the same figures, no bar. */
export function plainLine(p: BackfillProgress): string {
  const walked =
    p.phase === 'stage'
      ? `reading messages, ${int(p.messagesScanned)} of about ${int(Math.max(p.messagesScanned, p.messagesToScan))}`
      : p.phase === 'windows'
        ? `${int(p.messagesScanned)} of ${int(Math.max(p.messagesScanned, p.messagesToScan))} messages`
        : `${int(p.sessions)} of ${int(Math.max(p.sessions, p.sessionsToWalk))} sessions`;
  const figures = `${int(p.messagesScanned)} messages scanned, ${int(p.rowsWritten)} rows written, ${rate(p)}`;
  if (p.done) return `backfill: done, ${walked}, ${figures}, in ${took(p.ms)}`;
  return `backfill: ${Math.floor(fraction(p) * 100)}% (${walked}), ${figures}, ${eta(p)}`;
}

export function backfillProgressBar(terminal: ProgressTerminal, options: ProgressBarOptions = {}): BackfillProgressBar {
  const now = options.now ?? (() => performance.now());
  const every = terminal.isTTY ? (options.redrawEveryMs ?? 100) : (options.plainEveryMs ?? 5_000);
  const started = now();
  let last = started;
  let lineOpen = false;
  const fit = (line: string) => (terminal.columns && line.length >= terminal.columns ? line.slice(0, terminal.columns - 1) : line);
  return {
    update(p) {
      const t = now();
      if (terminal.isTTY) {
        if (!p.done && t - last < every && lineOpen) return;
        last = t;
        // \r back to the line's start, ESC[K clears what a longer line left.
        terminal.write(`\r${fit(drawnLine(p))}\x1b[K${p.done ? '\n' : ''}`);
        lineOpen = !p.done;
        return;
      }
      if (p.done) {
        if ((p.phase === 'windows' ? p.messagesScanned : p.sessions) > 0) terminal.write(`${plainLine(p)}\n`);
        return;
      }
      if (t - last < every) return;
      last = t;
      terminal.write(`${plainLine(p)}\n`);
    },
    end() {
      if (lineOpen) terminal.write('\n');
      lineOpen = false;
    },
  };
}

/** The process's stderr as a ProgressTerminal writing through `write` (the CLI's io.err). */
export function stderrTerminal(write: (text: string) => void): ProgressTerminal {
  return { write, isTTY: process.stderr.isTTY === true, columns: process.stderr.columns };
}
