// One benchmark figure: what was measured, the ceiling it is divided by (measured in the same
// run, on the same data), and the target the ratio is held to.
import type { DialectName } from '../../src/dialect.js';

export interface Target {
  /** 'at-least': ratio >= value; 'at-most': ratio <= value. */
  kind: 'at-least' | 'at-most';
  value: number;
  /** How the target reads in the table, e.g. '≥ 0.8×', '< 20 ms'. */
  text: string;
}

export interface Finding {
  section: 'live writer' | 'batch' | 'backfill' | 'hostile document' | 'health' | 'replay' | 'report' | 'acp intake' | 'proxy' | 'claude-code import';
  dialect: DialectName;
  config: string;
  measured: string;
  ceiling: string;
  /** The figure the target applies to (a ratio, or milliseconds for replay). */
  figure: number;
  figureText: string;
  target: Target | null;
  detail?: string;
}

export type Verdict = { met: boolean; text: string };

export function verdict(f: Finding): Verdict | null {
  if (!f.target || !Number.isFinite(f.figure)) return f.target ? { met: false, text: 'not measured' } : null;
  const { kind, value } = f.target;
  const met = kind === 'at-least' ? f.figure >= value : f.figure <= value;
  if (met) return { met, text: 'met' };
  const off = kind === 'at-least' ? (value - f.figure) / value : (f.figure - value) / value;
  return { met, text: `missed by ${(off * 100).toFixed(0)}%` };
}
