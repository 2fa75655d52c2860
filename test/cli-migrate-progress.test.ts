// Issue 32 item 4: `subagent-context migrate` shows the backfill's progress on stderr — a bar
// redrawn in place on a terminal (a real pseudo-terminal here, from util-linux's `script`), plain
// lines elsewhere (a pipe) — with the sessions walked, messages scanned, rows written, the rate
// and an ETA. The renderer (src/cli/backfill-progress-bar.ts) is driven with chosen figures and
// a chosen clock, terminal forced on and off; the binary runs against a real store of each
// dialect, whose figures the lines must state exactly.
import { spawn } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backfillProgressBar, drawnLine, formatDuration, plainLine } from '../src/cli/backfill-progress-bar.js';
import type { BackfillProgress } from '../src/types.js';
import { byDialect } from './helpers/by-dialect.js';
import { assertBuilt, CLI, databaseArgs, runCliBinary } from './helpers/cli.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertChatMessage, insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const at = (p: Partial<BackfillProgress>): BackfillProgress => ({
  chunks: 1,
  sessions: 0,
  rowsWritten: 0,
  messagesScanned: 0,
  messagesToScan: 0,
  sessionsToWalk: 0,
  ms: 0,
  done: false,
  phase: 'sessions',
  ...p,
  phaseMs: p.phaseMs ?? p.ms ?? 0, // one phase (PostgreSQL's): its clock is the run's
});

/** A terminal stand-in that keeps what was written, with a clock the test moves. */
function capture(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  let t = 0;
  return { writes, terminal: { write: (s: string) => void writes.push(s), isTTY, columns }, now: () => t, advance: (ms: number) => (t += ms) };
}

describe('the backfill progress renderer', () => {
  const midway = at({ chunks: 4, sessions: 2_500, sessionsToWalk: 10_000, messagesScanned: 300_000, rowsWritten: 1_234, ms: 6_000 });

  it('states sessions, messages scanned, rows written, rate and ETA', () => {
    // 300,000 messages in 6 s: 50,000/s; a quarter of the sessions in 6 s: 18 s left.
    expect(drawnLine(midway)).toBe(
      'backfill [######..................]  25% 2,500/10,000 sessions · 300,000 messages scanned · 1,234 rows written · 50,000 messages/s · ETA 0:18',
    );
    expect(plainLine(midway)).toBe('backfill: 25% (2,500 of 10,000 sessions), 300,000 messages scanned, 1,234 rows written, 50,000 messages/s, ETA 0:18');
    const done = { ...midway, sessions: 10_000, messagesScanned: 1_200_000, rowsWritten: 5_000, ms: 24_000, done: true };
    expect(drawnLine(done)).toMatch(
      /^backfill \[#{24}\] 100% 10,000\/10,000 sessions · 1,200,000 messages scanned · 5,000 rows written · 50,000 messages\/s · done in 24\.0 s$/,
    );
    expect(plainLine(done)).toBe('backfill: done, 10,000 of 10,000 sessions, 1,200,000 messages scanned, 5,000 rows written, 50,000 messages/s, in 24.0 s');
    // Before any session, the ETA is unknown, not zero; hours when it is long.
    expect(drawnLine(at({}))).toMatch(/ETA —$/);
    expect(formatDuration(4_000_000)).toBe('1:06:40');
    expect(formatDuration(75_000)).toBe('1:15');
  });

  it("SQLite's first phase: the messages read and its own ETA; the sessions' ETA counts the session walk's time only", () => {
    const reading = at({ phase: 'stage', chunks: 3, messagesScanned: 250_000, messagesToScan: 1_000_000, sessionsToWalk: 8_000, ms: 5_000 });
    expect(drawnLine(reading)).toBe(
      'backfill [######..................]  25% reading messages 250,000/1,000,000 · 0 rows written · 50,000 messages/s · reading ETA 0:15',
    );
    expect(plainLine(reading)).toMatch(/^backfill: 25% \(reading messages, 250,000 of about 1,000,000\), /);
    // 60 s of reading, then 2 s for 1,000 of 8,000 sessions: 14 s left, not 7 minutes.
    const walking = at({
      chunks: 20,
      sessions: 1_000,
      sessionsToWalk: 8_000,
      messagesScanned: 1_000_000,
      messagesToScan: 1_000_000,
      ms: 62_000,
      phaseMs: 2_000,
    });
    expect(drawnLine(walking)).toMatch(/ · ETA 0:14$/);
  });

  it("PostgreSQL's windows: the messages read of those to read, and the ETA per message", () => {
    const reading = at({ phase: 'windows', chunks: 5, messagesScanned: 400_000, messagesToScan: 1_000_000, rowsWritten: 80, ms: 4_000 });
    // 400,000 of 1,000,000 in 4 s: 100,000/s, 6 s left.
    expect(drawnLine(reading)).toBe('backfill [##########..............]  40% 400,000/1,000,000 messages · 80 rows written · 100,000 messages/s · ETA 0:06');
    expect(plainLine(reading)).toBe('backfill: 40% (400,000 of 1,000,000 messages), 400,000 messages scanned, 80 rows written, 100,000 messages/s, ETA 0:06');
    const done = { ...reading, messagesScanned: 1_000_000, rowsWritten: 200, ms: 10_000, phaseMs: 10_000, done: true };
    expect(plainLine(done)).toBe(
      'backfill: done, 1,000,000 of 1,000,000 messages, 1,000,000 messages scanned, 200 rows written, 100,000 messages/s, in 10.0 s',
    );
    // A log gets the last line of a walk that read messages, though no session was counted.
    const log = capture(false);
    backfillProgressBar(log.terminal, { now: log.now }).update(done);
    expect(log.writes).toEqual([`${plainLine(done)}\n`]);
  });

  it('on a terminal: one line redrawn in place (\\r, cleared), throttled, ended by the last chunk', () => {
    const c = capture(true);
    const bar = backfillProgressBar(c.terminal, { now: c.now, redrawEveryMs: 100 });
    bar.update(at({ sessions: 16, sessionsToWalk: 100 }));
    c.advance(50);
    bar.update(at({ sessions: 48, sessionsToWalk: 100 })); // within 100 ms: not drawn
    c.advance(60);
    bar.update(at({ sessions: 80, sessionsToWalk: 100 }));
    bar.update(at({ sessions: 100, sessionsToWalk: 100, done: true })); // the last: always drawn
    bar.end(); // nothing left open
    expect(c.writes.map((w) => /(\d+)\/100 sessions/.exec(w)?.[1])).toEqual(['16', '80', '100']);
    expect(c.writes.every((w) => w.startsWith('\r') && w.includes('\x1b[K'))).toBe(true);
    expect(c.writes.map((w) => w.endsWith('\n'))).toEqual([false, false, true]);
  });

  it('on a terminal, a failed backfill: end() closes the open line; a narrow terminal never wraps', () => {
    const c = capture(true, 40);
    const bar = backfillProgressBar(c.terminal, { now: c.now });
    bar.update(at({ sessions: 16, sessionsToWalk: 100 }));
    bar.end();
    expect(c.writes).toHaveLength(2);
    expect(c.writes[0].replace('\r', '').replace('\x1b[K', '')).toHaveLength(39);
    expect(c.writes[1]).toBe('\n');
  });

  it('elsewhere: a plain line every few seconds and one at the end; nothing for a backfill with no session', () => {
    const c = capture(false);
    const bar = backfillProgressBar(c.terminal, { now: c.now, plainEveryMs: 5_000 });
    for (let s = 1; s <= 12; s++) {
      c.advance(1_000);
      bar.update(at({ sessions: s, sessionsToWalk: 12, ms: s * 1_000, done: s === 12 }));
    }
    expect(c.writes).toEqual([
      'backfill: 41% (5 of 12 sessions), 0 messages scanned, 0 rows written, 0 messages/s, ETA 0:07\n',
      'backfill: 83% (10 of 12 sessions), 0 messages scanned, 0 rows written, 0 messages/s, ETA 0:02\n',
      'backfill: done, 12 of 12 sessions, 0 messages scanned, 0 rows written, 0 messages/s, in 12.0 s\n',
    ]);
    const empty = capture(false);
    backfillProgressBar(empty.terminal, { now: empty.now }).update(at({ done: true }));
    expect(empty.writes).toEqual([]);
  });
});

/** Runs the CLI under a pseudo-terminal: `script` gives it a tty for stdin, stdout and stderr. */
function runInTerminal(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
      env: { ...process.env, COLUMNS: '200' },
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

const SESSIONS = 40;

beforeAll(assertBuilt);

describeBothDialects('cli: migrate shows the backfill progress (issue 32)', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    // 40 sessions of 3 messages, one a subagent launch: 120 scanned, 40 rows; on SQLite in 2
    // chunks (16, then 24), on PostgreSQL in one window (the newest 10,000 messages hold all).
    for (let s = 0; s < SESSIONS; s++) {
      const id = `s${String(s).padStart(3, '0')}`;
      await insertSession(db, id);
      const createdAt = hostTimestamp(dialect, '2026-08-01 10:00:00');
      await insertSubagentMessage(db, { id: `${id}-m0`, sessionId: id, toolCallId: 'toolu_1', createdAt });
      await insertChatMessage(db, `${id}-m1`, id, createdAt);
      await insertChatMessage(db, `${id}-m2`, id, createdAt);
    }
  });
  afterEach(async () => db.close());

  it('not a terminal: the report on stdout, one plain line on stderr with the exact figures', async () => {
    const run = await runCliBinary(['migrate', ...databaseArgs(db)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^result: ok/m);
    const walked = byDialect(dialect, { sqlite: '40 of 40 sessions', postgres: '120 of 120 messages' });
    expect(run.stderr).toMatch(new RegExp(`^backfill: done, ${walked}, 120 messages scanned, 40 rows written, [\\d,]+ messages/s, in \\d+\\.\\d s\n$`));
    expect(run.stderr).not.toContain('\r');
    // Again: the backfill is skipped (activated), so there is no progress to show.
    const again = await runCliBinary(['migrate', ...databaseArgs(db), '--json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('on a terminal: the bar redrawn in place, ending at 100% with the exact figures, then the report', async () => {
    const run = await runInTerminal(['migrate', ...databaseArgs(db)]);
    expect(run.code, run.output).toBe(0);
    const draws = run.output.split('\r').filter((d) => d.startsWith('backfill ['));
    expect(draws.length).toBeGreaterThanOrEqual(1);
    const last = draws[draws.length - 1];
    const walked = byDialect(dialect, { sqlite: '40/40 sessions · 120 messages scanned', postgres: '120/120 messages' });
    expect(last).toMatch(new RegExp(`^backfill \\[#{24}\\] 100% ${walked} · 40 rows written · [\\d,]+ messages/s · done in \\d+\\.\\d s`));
    expect(last).toContain('s\x1b[K'); // the rest of the line cleared
    // The first draw: SQLite's first phase, which read all 120 messages in its first range, before
    // any session was written. PostgreSQL's one window is its last draw.
    if (dialect === 'postgres') expect(draws).toHaveLength(1);
    else {
      expect(draws.length).toBeGreaterThan(1); // the first report is always drawn, and the last
      expect(draws[0]).toMatch(/^backfill \[#{24}\] 100% reading messages 120\/120 · 0 rows written · /);
    }
    expect(run.output.indexOf('backfill [')).toBeLessThan(run.output.indexOf('result: ok'));
    expect(run.output).not.toContain('backfill: done'); // no plain line on a terminal
  });
});
