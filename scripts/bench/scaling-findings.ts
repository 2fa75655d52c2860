// The scaling row (issue 20): how cost grows with the store on the sparse shape at 0.25M, 1M and
// 4M messages — backfill time per message (proportional), last-window health and report (flat:
// the same newest 2,500 messages on every store), backfill memory (flat).
import { FIXED_WINDOW_RUNS } from './report-measure.js';
import type { DialectName } from '../../src/dialect.js';
import type { Finding } from './findings.js';
import { fmtInt, fmtMs, fmtRatio } from './stats.js';

const mb = (kb: number | undefined) => (kb === undefined ? 'n/a' : `${fmtInt(kb / 1024)} MB`);

/** The scaling row (issue 20): the sparse shape at 0.25M, 1M and 4M messages. */
const SCALING = ['sparse-250k', 'sparse-1m', 'sparse-4m'];
export const isScaling = (profile: string) => SCALING.includes(profile);
export interface Scale {
  profile: string;
  messages: number;
  /** runMigrations() as a whole, and its backfill step alone (median ms). */
  backfillMs?: number;
  backfillStepMs?: number;
  kb?: number;
  healthMs?: number;
  reportMs?: number;
}

/** How cost grows with the store: backfill time per message (proportional), last-1% health and report (flat), memory (flat). */
export function scalingFindings(dialect: DialectName, rows: Scale[]): Finding[] {
  if (rows.length < 2) return [];
  const config = `scaling: ${rows.map((r) => r.profile).join(' → ')}`;
  const spread = (xs: number[]) => Math.max(...xs) / Math.min(...xs);
  const out: Finding[] = [];
  const backfill = rows.filter((r) => r.backfillMs !== undefined && r.backfillStepMs !== undefined && r.kb !== undefined);
  if (backfill.length > 1) {
    // Per message of the backfill step (runMigrations' backfill_subagent_contexts): the pass's
    // schema steps cost the same on every store (about 0.1 s from empty on PostgreSQL, where
    // each is its own locked, fsynced transaction), which alone would make the smallest store
    // the slowest per message. The whole pass is in the detail.
    const perMessage = backfill.map((r) => (r.backfillStepMs! * 1000) / r.messages);
    const wholePass = backfill.map((r) => `${r.profile} ${((r.backfillMs! * 1000) / r.messages).toFixed(1)} µs (${fmtMs(r.backfillMs!)})`);
    out.push({
      section: 'backfill',
      dialect,
      config,
      measured: `backfill step time per message: ${backfill.map((r, i) => `${r.profile} ${perMessage[i].toFixed(2)} µs`).join(' · ')}`,
      ceiling: 'the smallest per-message time',
      figure: spread(perMessage),
      figureText: fmtRatio(spread(perMessage)),
      target: { kind: 'at-most', value: 1.5, text: 'proportional (≤ 1.5×)' },
      detail: `the backfill step as runMigrations() reports it (the INSERT, the high-water mark and the activation keys, in its locked transaction), median; the whole pass from an empty schema per message: ${wholePass.join(' · ')}`,
    });
    const memory = backfill.map((r) => r.kb!);
    out.push({
      section: 'backfill',
      dialect,
      config,
      measured: `backfill peak RSS: ${backfill.map((r) => `${r.profile} ${mb(r.kb)}`).join(' · ')}`,
      ceiling: 'smallest store',
      figure: spread(memory),
      figureText: fmtRatio(spread(memory)),
      target: { kind: 'at-most', value: 1.5, text: 'flat (≤ 1.5×)' },
    });
  }
  const health = rows.filter((r) => r.healthMs !== undefined);
  if (health.length > 1) {
    const ms = health.map((r) => r.healthMs!);
    out.push({
      section: 'health',
      dialect,
      config,
      measured: `checkHealth() over the newest 2,500 messages: ${health.map((r) => `${r.profile} ${fmtMs(r.healthMs!)}`).join(' · ')}`,
      ceiling: 'the fastest',
      figure: spread(ms),
      figureText: fmtRatio(spread(ms)),
      target: { kind: 'at-most', value: 1.5, text: 'flat (≤ 1.5×)' },
      detail: `a window of the same size on every store, so flat means the cost follows the window, not the history; median of ${FIXED_WINDOW_RUNS} runs after one untimed`,
    });
  }
  const report = rows.filter((r) => r.reportMs !== undefined);
  if (report.length > 1) {
    const ms = report.map((r) => r.reportMs!);
    out.push({
      section: 'report',
      dialect,
      config,
      measured: `report() over the newest 2,500 messages: ${report.map((r) => `${r.profile} ${fmtMs(r.reportMs!)}`).join(' · ')}`,
      ceiling: 'the fastest',
      figure: spread(ms),
      figureText: fmtRatio(spread(ms)),
      target: { kind: 'at-most', value: 1.5, text: 'flat (≤ 1.5×)' },
      detail: `median of ${FIXED_WINDOW_RUNS} runs after one untimed`,
    });
  }
  return out;
}
