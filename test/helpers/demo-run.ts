// The demo as the demo tests run it: a target database per dialect, the demo through the CLI's
// dispatcher (in process), and readers for what it printed (figures, charts, sections).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { byDialect } from './by-dialect.js';
import { createDatabase } from '../../scripts/lib/postgres-database.js';
import { runCli } from '../../src/cli/main.js';
import { createSubagentRecognizer } from '../../src/acp/index.js';
import { loadAcpFixture, type AcpFixtureName } from './acp-fixtures.js';
import type { Dialect } from './test-db.js';

export interface DemoTarget {
  /** The demo's database option: ['--sqlite', FILE] or ['--postgres', URL]. */
  args: string[];
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** SQL text of a timestamp column, comparable with parseInstant on both dialects. */
  timeText(column: string): string;
  close(): Promise<void>;
}

let counter = 0;

export async function demoTarget(dialect: Dialect): Promise<DemoTarget> {
  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-demo-test-'));
    const file = join(dir, 'demo.db');
    let db: Database.Database | undefined;
    const open = () => (db ??= new Database(file));
    return {
      args: ['--sqlite', file],
      query: async <T>(sql: string) => {
        const stmt = open().prepare(sql);
        return (stmt.reader ? stmt.all() : (stmt.run(), [])) as T[];
      },
      timeText: (column) => column,
      close: async () => {
        db?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createDatabase(inject('pgUrl'), `demo_${process.pid}_${Date.now().toString(36)}_${counter++}`);
  const pool = database.pool({ max: 2 });
  return {
    args: ['--postgres', database.url],
    query: async <T>(sql: string) => (await pool.query(sql)).rows as T[],
    timeText: (column) => `${column}::text`,
    close: () => database.drop(),
  };
}

/** `subagent-context demo ARGS`: the exit code, stdout (the report) and stderr (errors). */
export async function captureDemo(args: readonly string[]): Promise<{ code: number; text: string; errors: string }> {
  let text = '';
  let errors = '';
  const code = await runCli(['demo', ...args], { out: (t) => void (text += t), err: (t) => void (errors += t) });
  return { code, text, errors };
}

export const num = (s: string) => Number(s.replace(/,/g, ''));
/** `n` with `digits` decimals, as the demo and the report print ratios. */
export const decimals = (n: number, digits: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The first match of `pattern` in the demo's output, or a failure that shows the output. */
export function printed(text: string, pattern: RegExp): RegExpMatchArray {
  const m = text.match(pattern);
  if (!m) throw new Error(`the demo did not print ${pattern}:\n${text}`);
  return m;
}

/** metadata as every statement of the package reads it: NULL, '', 'null', invalid → {}. */
export function metadataOf(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/** The lines strictly between the first line matching `start` and the next matching `end`. */
export function linesBetween(text: string, start: RegExp, end: RegExp): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  const to = lines.findIndex((l, i) => i > from && end.test(l));
  if (from < 0 || to < 0) throw new Error(`the demo did not print ${start} … ${end}:\n${text}`);
  return lines.slice(from + 1, to);
}

/** Section 5: what store.report() printed through the report command's formatter. */
export const reportBlock = (text: string) => linesBetween(text, /^5\. store\.report\(\)/, /^\s+What the figures say:$/).join('\n');

/** A chart's bars as [label, what follows the bar]; the bar itself is drawn, not a figure. */
export const bars = (lines: string[]) =>
  lines.flatMap((l) => {
    const m = l.match(/^\s+(.+?) │[█▏▎▍▌▋▊▉]* ?(.*)$/);
    return m ? [[m[1], m[2]] as const] : [];
  });

/** An axis label such as 5k, 10k, 1.5M back to its number. */
export function compact(label: string): number {
  const m = printed(label, /^(\d+(?:\.\d+)?)([kMG]?)$/);
  return Number(m[1]) * { '': 1, k: 1e3, M: 1e6, G: 1e9 }[m[2] as '' | 'k' | 'M' | 'G'];
}

/** A token-group chart as label → [total, measured, unmeasured, mean or null]. */
export function groupBars(lines: string[]): Record<string, (number | null)[]> {
  const out: Record<string, (number | null)[]> = {};
  for (const [label, rest] of bars(lines)) {
    const m = printed(rest, /^([\d,]+) tokens {2}\(([\d,]+) measured · ([\d,]+) unmeasured(?: · mean ([\d,]+))?\)$/);
    if (label in out) throw new Error(`two bars labelled ${label}`);
    out[label] = [num(m[1]), num(m[2]), num(m[3]), m[4] === undefined ? null : num(m[4])];
  }
  return out;
}

/** A fan-out histogram on a contiguous axis 1…max, as the chart draws it (gaps are 0 turns). */
export function contiguous(histogram: Map<number, number>): number[][] {
  const max = Math.max(0, ...histogram.keys());
  return Array.from({ length: max }, (_, i) => [i + 1, histogram.get(i + 1) ?? 0]);
}

export const toCounts = (rows: { k: unknown; n: unknown }[]) => Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));

/** How many updates of a recording the recognizer takes for a subagent's: the frames the recorder writes from it. */
export function subagentFrames(name: AcpFixtureName): number {
  const recognizer = createSubagentRecognizer();
  return loadAcpFixture(name).filter((u) => recognizer.observe(u) !== undefined).length;
}

/** Claude Code's subagent launches in a recording: its `Agent` tool calls. */
export const claudeLaunches = (name: AcpFixtureName) =>
  loadAcpFixture(name).filter((p) => p.update.sessionUpdate === 'tool_call' && JSON.stringify(p.update._meta).includes('"toolName":"Agent"')).length;
