// What the scale measures (./scale-measure.ts on PostgreSQL, ./scale-measure-sqlite.ts on
// SQLite) print per store, and the pieces both read it with.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Target } from './store-targets.js';

export interface ScaleMeasurement {
  profile: string;
  messages: number;
  backfillMs: number[];
  rows: number;
  longestTransactionMs: number;
  longestStatementMs: number;
  clientPeakRssKb: number;
  clientBaselineRssKb: number;
  backendPeakAnonKb: number | undefined;
  writer: { ops: number; worstMs: number; p99Ms: number; failures: number };
}

/** A store's measurement before its first run. */
export function emptyMeasurement(profile: { name: string; messages: number }): ScaleMeasurement {
  return {
    profile: profile.name,
    messages: profile.messages,
    backfillMs: [],
    rows: 0,
    longestTransactionMs: 0,
    longestStatementMs: 0,
    clientPeakRssKb: 0,
    clientBaselineRssKb: 0,
    backendPeakAnonKb: undefined,
    writer: { ops: 0, worstMs: 0, p99Ms: 0, failures: 0 },
  };
}

/** A field of this process's /proc status, in kB (VmRSS, VmHWM). */
export const statusKb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN);

/**
 * Readies one run: the store reset and its schema steps run with the backfill deferred (so the
 * timed runMigrations() is the backfill step), then this process's peak RSS reset and its
 * baseline read.
 */
export async function startRun(target: Pick<Target, 'reset' | 'store'>, out: ScaleMeasurement): Promise<void> {
  await target.reset();
  await target.store().runMigrations({ backfill: 'defer' });
  writeFileSync('/proc/self/clear_refs', '5');
  out.clientBaselineRssKb = statusKb('VmRSS');
}
