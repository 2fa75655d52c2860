// The report section of the store worker: store.report() against the bare reads it stands
// in for, on the same activated store, alternating which goes first (issue 13):
//   recent:  report({ since }) with since at the 99th percentile of created_at (the last 1%),
//            vs a bare full read of task_session_subagents plus the window's messages;
//   full:    report() over all history, vs a bare full read of task_session_subagents plus
//            every message (streamed, so the ceiling's memory does not grow with the store).
// The bare reads fetch every column of every row into JavaScript and do nothing else. The
// report's own peak resident set is taken over report() calls alone (Linux high-water mark
// reset before them), with the JS heap after each call.
import type { SubagentContextStore } from '../../src/index.js';
import { formatKeyInstant, parseInstant } from '../../src/instant.js';
import { msSince } from './stats.js';

export interface ReportTarget {
  /** Every row of task_session_subagents, every column, into JS; returns the row count. */
  bareSubagents(): Promise<number>;
  /** Every message with created_at >= the given stored text (all when null), streamed; returns the count. */
  bareMessages(sinceCreatedAt: string | null): Promise<number>;
  createdAtAt(fraction: number): Promise<string>;
}

export interface ReportMeasurement {
  recentMs: number[];
  recentSubagentsMs: number[];
  recentMessagesMs: number[];
  recentMessages: number;
  fullMs: number[];
  fullSubagentsMs: number[];
  fullMessagesMs: number[];
  fullMessages: number;
  rows: number;
  /** Peak resident set over report() calls alone (KiB), and the JS heap after them. */
  peakRssKb: number;
  heapUsedKb: number;
  /** report({ since }) over the newest FIXED_WINDOW_MESSAGES messages (the scaling row). */
  fixedWindowMs: number[];
}

async function timeMs<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return [msSince(start), value];
}

/** The scaling row's fixed window: the newest 2,500 messages (the 0.25M store's last 1%). */
const FIXED_WINDOW_MESSAGES = 2_500;
/**
 * Runs of each scaling row's fixed window, after one untimed: each is a few milliseconds, and
 * on this 2-vCPU VM a burst after idle can run 2–3× slower (an idle vCPU halts), so three
 * runs let one such burst move the median. The runs are cheap at this size.
 */
export const FIXED_WINDOW_RUNS = 11;
export const fixedWindowFraction = (messages: number) => Math.max(0, 1 - FIXED_WINDOW_MESSAGES / messages);

export async function measureReport(
  target: ReportTarget,
  store: SubagentContextStore,
  runs: number,
  memory: { reset(): void; peakKb(): number },
  messages: number,
): Promise<ReportMeasurement> {
  const sinceText = await target.createdAtAt(0.99);
  const since = formatKeyInstant(parseInstant(sinceText)!);
  const m: ReportMeasurement = {
    recentMs: [],
    recentSubagentsMs: [],
    recentMessagesMs: [],
    recentMessages: 0,
    fullMs: [],
    fullSubagentsMs: [],
    fullMessagesMs: [],
    fullMessages: 0,
    rows: 0,
    peakRssKb: 0,
    heapUsedKb: 0,
    fixedWindowMs: [],
  };
  // Memory first, over report() alone.
  memory.reset();
  for (let r = 0; r < 2; r++) {
    m.rows = (await store.report()).provenance.rows;
    await store.report({ since });
  }
  m.peakRssKb = memory.peakKb();
  m.heapUsedKb = process.memoryUsage().heapUsed / 1024;

  for (let r = 0; r < Math.max(3, runs); r++) {
    const steps: (() => Promise<void>)[] = [
      async () => void m.recentMs.push((await timeMs(() => store.report({ since })))[0]),
      async () => {
        m.recentSubagentsMs.push((await timeMs(() => target.bareSubagents()))[0]);
        const [ms, n] = await timeMs(() => target.bareMessages(sinceText));
        m.recentMessagesMs.push(ms);
        m.recentMessages = n;
      },
      async () => void m.fullMs.push((await timeMs(() => store.report()))[0]),
      async () => {
        m.fullSubagentsMs.push((await timeMs(() => target.bareSubagents()))[0]);
        const [ms, n] = await timeMs(() => target.bareMessages(null));
        m.fullMessagesMs.push(ms);
        m.fullMessages = n;
      },
    ];
    // Alternate: even runs report first, odd runs the bare reads first.
    const order = r % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
    for (const i of order) await steps[i]();
  }
  // The scaling row's window: the same number of newest messages on every store.
  const fixedSince = formatKeyInstant(parseInstant(await target.createdAtAt(fixedWindowFraction(messages)))!);
  await store.report({ since: fixedSince });
  for (let r = 0; r < FIXED_WINDOW_RUNS; r++) m.fixedWindowMs.push((await timeMs(() => store.report({ since: fixedSince })))[0]);
  return m;
}
