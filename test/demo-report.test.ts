// The demo cannot silently lie: it runs on a real database per dialect, then every figure it
// printed is re-derived here from the tables with the test's own SQL and compared. Its
// measurements come from store.report(); the test does not call report() or reuse its
// statements: it reads the raw rows and counts them in JavaScript (fan-out eras, token
// buckets and groups, executions), as it does for the health comparison. The seeded history is also
// checked against the spec's "Sampled input shapes" through what the backfill recovered.
// The demo runs as `subagent-context demo` through the CLI's dispatcher (in process), so its
// exit codes, output stream and error stream are the CLI's.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { createDatabase } from '../scripts/lib/postgres-database.js';
import { runCli } from '../src/cli/main.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { parseInstant } from '../src/instant.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { loadAcpFixture, type AcpFixtureName } from './helpers/acp-fixtures.js';

interface DemoTarget {
  /** The demo's database option: ['--sqlite', FILE] or ['--postgres', URL]. */
  args: string[];
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** SQL text of a timestamp column, comparable with parseInstant on both dialects. */
  timeText(column: string): string;
  close(): Promise<void>;
}

let counter = 0;

async function demoTarget(dialect: Dialect): Promise<DemoTarget> {
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
async function captureDemo(args: readonly string[]): Promise<{ code: number; text: string; errors: string }> {
  let text = '';
  let errors = '';
  const code = await runCli(['demo', ...args], { out: (t) => void (text += t), err: (t) => void (errors += t) });
  return { code, text, errors };
}

const num = (s: string) => Number(s.replace(/,/g, ''));
/** `n` with `digits` decimals, as the demo and the report print ratios. */
const decimals = (n: number, digits: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The first match of `pattern` in the demo's output, or a failure that shows the output. */
function printed(text: string, pattern: RegExp): RegExpMatchArray {
  const m = text.match(pattern);
  if (!m) throw new Error(`the demo did not print ${pattern}:\n${text}`);
  return m;
}

/** metadata as every statement of the package reads it: NULL, '', 'null', invalid → {}. */
function metadataOf(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/** The lines strictly between the first line matching `start` and the next matching `end`. */
function linesBetween(text: string, start: RegExp, end: RegExp): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  const to = lines.findIndex((l, i) => i > from && end.test(l));
  if (from < 0 || to < 0) throw new Error(`the demo did not print ${start} … ${end}:\n${text}`);
  return lines.slice(from + 1, to);
}

/** Section 5: what store.report() printed through the report command's formatter. */
const reportBlock = (text: string) => linesBetween(text, /^5\. store\.report\(\)/, /^\s+What the figures say:$/).join('\n');

/** A chart's bars as [label, what follows the bar]; the bar itself is drawn, not a figure. */
const bars = (lines: string[]) =>
  lines.flatMap((l) => {
    const m = l.match(/^\s+(.+?) │[█▏▎▍▌▋▊▉]* ?(.*)$/);
    return m ? [[m[1], m[2]] as const] : [];
  });

/** An axis label such as 5k, 10k, 1.5M back to its number. */
function compact(label: string): number {
  const m = printed(label, /^(\d+(?:\.\d+)?)([kMG]?)$/);
  return Number(m[1]) * { '': 1, k: 1e3, M: 1e6, G: 1e9 }[m[2] as '' | 'k' | 'M' | 'G'];
}

/** A token-group chart as label → [total, measured, unmeasured, mean or null]. */
function groupBars(lines: string[]): Record<string, (number | null)[]> {
  const out: Record<string, (number | null)[]> = {};
  for (const [label, rest] of bars(lines)) {
    const m = printed(rest, /^([\d,]+) tokens {2}\(([\d,]+) measured · ([\d,]+) unmeasured(?: · mean ([\d,]+))?\)$/);
    if (label in out) throw new Error(`two bars labelled ${label}`);
    out[label] = [num(m[1]), num(m[2]), num(m[3]), m[4] === undefined ? null : num(m[4])];
  }
  return out;
}

/** A fan-out histogram on a contiguous axis 1…max, as the chart draws it (gaps are 0 turns). */
function contiguous(histogram: Map<number, number>): number[][] {
  const max = Math.max(0, ...histogram.keys());
  return Array.from({ length: max }, (_, i) => [i + 1, histogram.get(i + 1) ?? 0]);
}

type KeyName = 'capture_since' | 'backfill_through' | 'execution_since';

/** Every figure the demo prints from store.report(), re-derived from the tables: SQL reads the rows, JavaScript counts them. */
interface ExpectedFigures {
  keys: Record<KeyName, string | null>;
  provenance: { rows: number; live: number; backfill: number; liveBeforeCaptureSince: number };
  fanOut: { known: Map<number, number>; unknown: Map<number, number>; unknownTurns: number; rowsWithoutTurn: number };
  cards: { tasks: number; sessions: number; contexts: number; tasksWithSubagents: number };
  tokens: {
    settled: number;
    measured: number;
    unmeasured: number;
    outstanding: number;
    total: number;
    /** [from, to, subagents] on 1-2-5 buckets, contiguous from the smallest to the largest non-empty one. */
    distribution: number[][];
    bySource: Record<string, (number | null)[]>;
    bySubagentType: Record<string, (number | null)[]>;
    byModel: Record<string, (number | null)[]>;
  };
  executions: { distinct: number; identified: number; unknown: number; unknownBackfill: number; unknownLiveSinceExecutionSince: number };
}

async function expectedFigures(target: DemoTarget): Promise<ExpectedFigures> {
  const meta = await target.query<{ key: string; value: string }>(`SELECT key, value FROM kandev_meta WHERE key LIKE 'subagent_context_%'`);
  const key = (name: KeyName) => meta.find((m) => m.key === `subagent_context_${name}`)?.value ?? null;
  const keys = { capture_since: key('capture_since'), backfill_through: key('backfill_through'), execution_since: key('execution_since') };
  const instant = (name: KeyName) => {
    const ns = keys[name] === null ? null : parseInstant(keys[name]!);
    if (ns === null) throw new Error(`the demo store's ${name} is not an instant: ${keys[name]}`);
    return ns;
  };
  const [captureSince, backfillThrough, executionSince] = [instant('capture_since'), instant('backfill_through'), instant('execution_since')];

  const rows = (
    await target.query<Record<string, unknown>>(
      `SELECT s.task_session_id, s.turn_id, s.source, s.agent_execution_id, s.subagent_type, s.model, s.total_tokens,
              CASE WHEN s.settled_at IS NULL THEN 0 ELSE 1 END AS settled, ${target.timeText('s.observed_at')} AS at, t.task_id AS session_task
         FROM task_session_subagents s JOIN task_sessions t ON t.id = s.task_session_id`,
    )
  ).map((r) => ({
    session: String(r.task_session_id),
    turn: r.turn_id === null ? null : String(r.turn_id),
    source: String(r.source),
    execution: String(r.agent_execution_id),
    subagentType: r.subagent_type === null ? null : String(r.subagent_type),
    model: r.model === null ? null : String(r.model),
    tokens: r.total_tokens === null ? null : Number(r.total_tokens),
    settled: Number(r.settled) === 1,
    at: parseInstant(String(r.at))!,
    task: String(r.session_task),
  }));
  // A session is active with a message or a subagent row (no window: at any time).
  const active = await target.query<{ id: string; task_id: string }>(
    `SELECT t.id, t.task_id FROM task_sessions t
      WHERE EXISTS (SELECT 1 FROM task_session_messages m WHERE m.task_session_id = t.id)
         OR EXISTS (SELECT 1 FROM task_session_subagents s WHERE s.task_session_id = t.id)`,
  );

  const live = rows.filter((r) => r.source === 'live');
  // A turn is (session, turn_id); its era is decided by its first row against backfill_through (AC-25).
  const turns = new Map<string, { size: number; first: bigint }>();
  for (const r of rows.filter((x) => x.turn !== null)) {
    const id = `${r.session}\u0000${r.turn}`;
    const t = turns.get(id) ?? { size: 0, first: r.at };
    turns.set(id, { size: t.size + 1, first: r.at < t.first ? r.at : t.first });
  }
  const known = new Map<number, number>();
  const unknown = new Map<number, number>();
  for (const t of turns.values()) {
    const era = t.first >= backfillThrough ? known : unknown;
    era.set(t.size, (era.get(t.size) ?? 0) + 1);
  }

  const settled = rows.filter((r) => r.settled);
  const measured = settled.filter((r) => r.tokens !== null).map((r) => r.tokens!);
  if (measured.some((n) => n < 1)) throw new Error('a measured total_tokens below 1: the 1-2-5 buckets below do not cover it');
  const bucketOf = (n: number) => {
    const decade = 10 ** (String(n).length - 1);
    const lead = Math.floor(n / decade);
    return lead < 2 ? [decade, 2 * decade] : lead < 5 ? [2 * decade, 5 * decade] : [5 * decade, 10 * decade];
  };
  const edges = [...new Set(measured.map((n) => bucketOf(n)[0]))].sort((a, b) => a - b);
  const distribution: number[][] = [];
  for (let from = edges[0]; edges.length && from <= edges.at(-1)!; from = bucketOf(from)[1]) {
    distribution.push([from, bucketOf(from)[1], measured.filter((n) => bucketOf(n)[0] === from).length]);
  }
  const groups = (by: (r: (typeof rows)[number]) => string | null, notReported: string) => {
    const out: Record<string, (number | null)[]> = {};
    for (const value of new Set(settled.map(by))) {
      const group = settled.filter((r) => by(r) === value);
      const tokens = group.flatMap((r) => (r.tokens === null ? [] : [r.tokens]));
      const total = tokens.reduce((a, b) => a + b, 0);
      out[value ?? notReported] = [total, tokens.length, group.length - tokens.length, tokens.length ? Math.round(total / tokens.length) : null];
    }
    return out;
  };
  const unknownRows = rows.filter((r) => r.execution === 'unknown');

  return {
    keys,
    provenance: {
      rows: rows.length,
      live: live.length,
      backfill: rows.filter((r) => r.source === 'backfill').length,
      liveBeforeCaptureSince: live.filter((r) => r.at < captureSince).length,
    },
    fanOut: { known, unknown, unknownTurns: [...unknown.values()].reduce((a, b) => a + b, 0), rowsWithoutTurn: rows.filter((r) => r.turn === null).length },
    cards: {
      tasks: new Set(active.map((s) => s.task_id)).size,
      sessions: active.length,
      contexts: rows.length,
      tasksWithSubagents: new Set(rows.map((r) => r.task)).size,
    },
    tokens: {
      settled: settled.length,
      measured: measured.length,
      unmeasured: settled.length - measured.length,
      outstanding: rows.length - settled.length,
      total: measured.reduce((a, b) => a + b, 0),
      distribution,
      bySource: groups((r) => r.source, '(none)'),
      bySubagentType: groups((r) => r.subagentType, '(not reported)'),
      byModel: groups((r) => r.model, '(not reported)'),
    },
    executions: {
      distinct: new Set(rows.filter((r) => r.execution !== 'unknown').map((r) => r.execution)).size,
      identified: rows.length - unknownRows.length,
      unknown: unknownRows.length,
      unknownBackfill: unknownRows.filter((r) => r.source === 'backfill').length,
      unknownLiveSinceExecutionSince: unknownRows.filter((r) => r.source === 'live' && r.at >= executionSince).length,
    },
  };
}

const toCounts = (rows: { k: unknown; n: unknown }[]) => Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));

/** How many updates of a recording the recognizer takes for a subagent's: the frames the recorder writes from it. */
function subagentFrames(name: AcpFixtureName): number {
  const recognizer = createSubagentRecognizer();
  return loadAcpFixture(name).filter((u) => recognizer.observe(u) !== undefined).length;
}

/** Claude Code's subagent launches in a recording: its `Agent` tool calls. */
const claudeLaunches = (name: AcpFixtureName) =>
  loadAcpFixture(name).filter((p) => p.update.sessionUpdate === 'tool_call' && JSON.stringify(p.update._meta).includes('"toolName":"Agent"')).length;

describeBothDialects('demo', (dialect) => {
  let target: DemoTarget;
  let run: { code: number; text: string; errors: string };
  let figures: Promise<ExpectedFigures> | undefined;
  const expected = () => (figures ??= expectedFigures(target));

  // One demo run per dialect (the full walk-through, --verbose); every test below only reads what it printed and wrote.
  beforeAll(async () => {
    target = await demoTarget(dialect);
    run = await captureDemo([...target.args, '--verbose']);
  });
  afterAll(async () => target.close());

  it('succeeds: the upgrade applied and the health check reads healthy', () => {
    expect(run.text).toMatch(/ok: true/);
    expect(printed(run.text, /state (\w+) · verdict (\w+)/).slice(1)).toEqual(['activated', 'healthy']);
    expect(run.errors).toBe('');
    expect(run.code).toBe(EXIT.ok);
  });

  it("backfills the spec's sampled population (Sampled input shapes)", async () => {
    const [totals] = await target.query<{ n: unknown; sessions: unknown; turns: unknown; nested: unknown; untyped: unknown }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT task_session_id) AS sessions,
              COUNT(DISTINCT task_session_id || '/' || turn_id) AS turns,
              COUNT(parent_tool_call_id) AS nested, SUM(CASE WHEN subagent_type IS NULL THEN 1 ELSE 0 END) AS untyped
         FROM task_session_subagents WHERE source = 'backfill'`,
    );
    expect([totals.n, totals.sessions, totals.turns, totals.nested, totals.untyped].map(Number)).toEqual([253, 38, 127, 1, 3]);

    const presence = await target.query<Record<string, unknown>>(
      `SELECT COALESCE(agent_status, '(absent)') AS status, COUNT(*) AS n, COUNT(agent_id) AS agent_id,
              COUNT(child_session_id) AS child_session_id, COUNT(model) AS model, COUNT(total_tokens) AS total_tokens,
              COUNT(tool_use_count) AS tool_use_count, COUNT(duration_ms) AS duration_ms
         FROM task_session_subagents WHERE source = 'backfill' GROUP BY COALESCE(agent_status, '(absent)') ORDER BY 1`,
    );
    const table = Object.fromEntries(presence.map(({ status, ...counts }) => [status, Object.values(counts).map(Number)]));
    // n, agent_id, child_session_id, model, total_tokens, tool_use_count, duration_ms
    expect(table).toEqual({
      '(absent)': [1, 0, 0, 0, 0, 0, 0],
      async_launched: [190, 190, 0, 190, 0, 0, 0],
      completed: [57, 57, 0, 49, 57, 57, 57],
      started: [5, 0, 5, 0, 0, 0, 0],
    });

    const fanOut = await target.query<{ k: unknown; n: unknown }>(
      `SELECT per_turn.k AS k, COUNT(*) AS n FROM (
         SELECT COUNT(*) AS k FROM task_session_subagents WHERE source = 'backfill' GROUP BY task_session_id, turn_id
       ) AS per_turn GROUP BY per_turn.k`,
    );
    expect(toCounts(fanOut)).toEqual({ 1: 65, 2: 12, 3: 42, 4: 5, 5: 2, 8: 1 });
  });

  it('prints the report header and exactly the AC-25 caveats that apply, with the figures the tables hold', async () => {
    const e = await expected();
    const block = reportBlock(run.text);
    expect(printed(block, /^\s+window +(.+)$/m)[1]).toBe('all history');
    expect(printed(block, /^\s+scope +(.+)$/m)[1]).toBe('every task');
    // AC-24c: capture_since and execution_since both present = activated.
    expect([e.keys.capture_since, e.keys.execution_since]).not.toContain(null);
    expect(printed(block, /^\s+state +(\w+): /m)[1]).toBe('activated');
    const keys = printed(block, /^\s+keys +capture_since (\S+) · backfill_through (\S+) · execution_since (\S+)$/m).slice(1);
    expect(keys).toEqual([e.keys.capture_since, e.keys.backfill_through, e.keys.execution_since]);

    // Every numbered note printed is one of these, with these figures, in this order, and none is missing.
    const rules: [RegExp, (number | string)[]][] = [
      [/^([\d,]+) rows? of ([\d,]+) came from the backfill \(source 'backfill'\)/, [e.provenance.backfill, e.provenance.rows]],
      [
        /^Fan-out is known for turns whose first subagent was observed at or after subagent_context_backfill_through \((\S+)\)\. Turns that began earlier have unknown fan-out/,
        [e.keys.backfill_through!],
      ],
      [/^([\d,]+) turns? began before any fan-out boundary; their rows are counted, not discarded/, [e.fanOut.unknownTurns]],
      [/^Before subagent_context_capture_since \((\S+)\) the absence of a row is not evidence that no subagent ran/, [e.keys.capture_since!]],
      [/^([\d,]+) rows? carr(?:y|ies) agent_execution_id 'unknown': the execution is unrecorded/, [e.executions.unknown]],
      [/^([\d,]+) live rows? observed since subagent_context_execution_since arrived without an execution id/, [e.executions.unknownLiveSinceExecutionSince]],
      [
        /^([\d,]+) settled subagents? reported no token usage \(total_tokens NULL\).* cover the ([\d,]+) measured subagents? only/,
        [e.tokens.unmeasured, e.tokens.measured],
      ],
      [/^([\d,]+) subagents? had not settled when read/, [e.tokens.outstanding]],
    ];
    // "N. sentence [AC-…]": numbered from 1, the criteria as references at the end, none left in the running text but AC-31's name.
    const notes = [...block.matchAll(/^\s+(\d+)\. (.*?)(?: \[(AC-[^\]]+)\])?$/gm)];
    expect(notes.map((m) => Number(m[1]))).toEqual(notes.map((_, i) => i + 1));
    expect(notes.filter((m) => /\(AC-|, AC-\d+\)/.test(m[2]))).toEqual([]);
    expect(notes.map((m) => m[3] ?? '')).toEqual(['AC-25', 'AC-25', 'AC-25', 'AC-25', 'AC-25, AC-31', 'AC-31', 'AC-7', '']);
    const bullets = notes.map((m) => m[2]);
    const read = bullets.map((text) => {
      const hits = rules.flatMap(([pattern], index) => {
        const m = text.match(pattern);
        return m ? [[index, m.slice(1).map((v) => (/^[\d,]+$/.test(v) ? num(v) : v))]] : [];
      });
      if (hits.length !== 1) throw new Error(`caveat matched by ${hits.length} checks: ${text}`);
      return hits[0];
    });
    // On the demo store every one of these rules applies: each figure is non-zero.
    expect(rules.every(([, values]) => values.every((v) => v !== 0 && v !== null))).toBe(true);
    expect(read).toEqual(rules.map(([, values], index) => [index, values]));
  });

  it('prints the fan-out histograms, known and unknown apart, that the tables hold', async () => {
    const e = await expected();
    const block = reportBlock(run.text);
    const histogram = (lines: string[]) => bars(lines).map(([k, rest]) => [Number(k), num(printed(rest, /^([\d,]+) turns?$/)[1])]);
    const known = histogram(
      linesBetween(block, /^\s+known fan-out: turns whose first subagent was observed at or after (\S+) \(backfill_through\)$/, /^\s+unknown fan-out:/),
    );
    const unknown = histogram(linesBetween(block, /^\s+unknown fan-out:/, /^\s+rows without a turn:/));
    expect(printed(block, /known fan-out: turns whose first subagent was observed at or after (\S+) \(backfill_through\)/)[1]).toBe(e.keys.backfill_through);
    expect(known).toEqual(contiguous(e.fanOut.known));
    expect(unknown).toEqual(contiguous(e.fanOut.unknown));
    const tail = printed(block, /rows without a turn: ([\d,]+) · turns continuing past until: ([\d,]+) · turns begun before since: ([\d,]+)/)
      .slice(1)
      .map(num);
    expect(tail).toEqual([e.fanOut.rowsWithoutTurn, 0, 0]); // no window: nothing continues past it or began before it
    // The unknown era is the backfilled history: the spec's sampled fan-out beyond one
    // subagent per turn (the one-subagent turn at exactly backfill_through is known, AC-24 point 3).
    expect(Object.fromEntries([...e.fanOut.unknown].filter(([k]) => k > 1))).toEqual({ 2: 12, 3: 42, 4: 5, 5: 2, 8: 1 });
  });

  it('prints cards, provenance, tokens and executions as the tables hold them', async () => {
    const e = await expected();
    const block = reportBlock(run.text);
    const cards = printed(block, /^\s+([\d,]+) cards? · ([\d,]+) sessions? · ([\d,]+) subagent contexts? · ([\d,]+) of the cards fanned out$/m)
      .slice(1)
      .map(num);
    expect(cards).toEqual([e.cards.tasks, e.cards.sessions, e.cards.contexts, e.cards.tasksWithSubagents]);
    const ratios = Object.fromEntries(bars(linesBetween(block, /^\s+[\d,]+ cards? · /, /^\s*Provenance/)).map(([label, rest]) => [label, rest]));
    expect(ratios).toEqual({
      'sessions per card': decimals(e.cards.sessions / e.cards.tasks, 2),
      'contexts per card': `${decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2)}  (sessions + subagent contexts)`,
    });
    expect(e.cards.sessions / e.cards.tasks).toBe(1); // what task_sessions alone says (spec § Why)

    const provenance = printed(block, /^\s+([\d,]+) rows: ([\d,]+) live \(([\d,]+) observed before capture_since\) · ([\d,]+) backfill$/m)
      .slice(1)
      .map(num);
    expect(provenance).toEqual([e.provenance.rows, e.provenance.live, e.provenance.liveBeforeCaptureSince, e.provenance.backfill]);

    const t = e.tokens;
    expect(
      printed(block, /settled ([\d,]+) · measured ([\d,]+) · unmeasured ([\d,]+) · not settled ([\d,]+)/)
        .slice(1)
        .map(num),
    ).toEqual([t.settled, t.measured, t.unmeasured, t.outstanding]);
    expect(
      printed(block, /total ([\d,]+) tokens · mean ([\d,]+) tokens per measured subagent/)
        .slice(1)
        .map(num),
    ).toEqual([t.total, Math.round(t.total / t.measured)]);
    expect(t.unmeasured).toBeGreaterThan(190); // the async_launched dispatches, never 0-filled
    const distribution = bars(linesBetween(block, /distribution of total_tokens/, /^\s+by source$/)).map(([label, rest]) => {
      const [from, to] = printed(label, /^(\S+)–(\S+)$/)
        .slice(1)
        .map(compact);
      return [from, to, num(printed(rest, /^([\d,]+) subagents?$/)[1])];
    });
    expect(distribution).toEqual(t.distribution);
    expect(groupBars(linesBetween(block, /^\s+by source$/, /^\s+by subagent_type$/))).toEqual(t.bySource);
    expect(groupBars(linesBetween(block, /^\s+by subagent_type$/, /^\s+by model$/))).toEqual(t.bySubagentType);
    expect(groupBars(linesBetween(block, /^\s+by model$/, /^\s*Executions/))).toEqual(t.byModel);

    const x = e.executions;
    expect(num(printed(block, /distinct executions: ([\d,]+)/)[1])).toBe(x.distinct);
    const rows = printed(block, /rows with an execution id: ([\d,]+) · 'unknown' rows: ([\d,]+) \(([\d,]+) backfill · ([\d,]+) live since execution_since\)/)
      .slice(1)
      .map(num);
    expect(rows).toEqual([x.identified, x.unknown, x.unknownBackfill, x.unknownLiveSinceExecutionSince]);
  });

  it('tells the story in figures the tables hold, and points at the commands that read them again', async () => {
    const e = await expected();
    const story = linesBetween(run.text, /^\s+What the figures say:$/, /^6\. /).join('\n');
    const cards = printed(
      story,
      /task_sessions alone says ([\d.]+) session per card; with the ([\d,]+) subagent contexts the store records, a card's work ran in ([\d.]+) contexts \(([\d,]+) of ([\d,]+) cards fanned out\)/,
    );
    expect(cards.slice(1)).toEqual([
      decimals(e.cards.sessions / e.cards.tasks, 2),
      e.cards.contexts.toLocaleString('en-US'),
      decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2),
      String(e.cards.tasksWithSubagents),
      String(e.cards.tasks),
    ]);
    const turnsOf = (h: Map<number, number>) => [...h.values()].reduce((a, b) => a + b, 0);
    const subagentsOf = (h: Map<number, number>) => [...h].reduce((a, [k, n]) => a + k * n, 0);
    const known = printed(story, /known fan-out: ([\d,]+) turns? \(([\d,]+) subagents?\) whose first subagent came at or after backfill_through \((\S+)\)/);
    expect([num(known[1]), num(known[2]), known[3]]).toEqual([turnsOf(e.fanOut.known), subagentsOf(e.fanOut.known), e.keys.backfill_through]);
    const unknown = printed(
      story,
      /unknown fan-out: ([\d,]+) turns? \(([\d,]+) subagents?\) began before it, .*most often ([\d,]+) per turn \(([\d,]+) turns?\)/,
    );
    expect(unknown.slice(1).map(num)).toEqual([turnsOf(e.fanOut.unknown), subagentsOf(e.fanOut.unknown), 3, e.fanOut.unknown.get(3)]);
    expect(Math.max(...[...e.fanOut.unknown].filter(([k]) => k > 1).map(([, n]) => n))).toBe(e.fanOut.unknown.get(3)); // 3 is the widest story
    const t = e.tokens;
    const zero = printed(
      story,
      /read as 0, the ([\d,]+) unmeasured subagents would pull the mean from ([\d,]+) to ([\d,]+) tokens per settled subagent: ([\d.]+)× too low/,
    );
    expect(zero.slice(1)).toEqual(
      [t.unmeasured, Math.round(t.total / t.measured), Math.round(t.total / t.settled)]
        .map((n) => n.toLocaleString('en-US'))
        .concat(decimals(t.settled / t.measured, 1)),
    );
    const split = printed(story, /([\d,]+) live rows? and ([\d,]+) backfilled rows?/);
    expect(split.slice(1).map(num)).toEqual([e.provenance.live, e.provenance.backfill]);

    const commands = linesBetween(run.text, /^6\. /, /^done in /);
    expect(commands.filter((l) => l.includes(`report ${target.args[0]} `)).length).toBe(3);
    expect(printed(commands.join('\n'), /--since (\S+)/)[1]).toBe(e.keys.capture_since);
  });

  it('prints the activation keys as stored and a health comparison the raw rows confirm', async () => {
    const keys = await target.query<{ key: string; value: string }>(`SELECT key, value FROM kandev_meta WHERE key LIKE 'subagent_context_%' ORDER BY key`);
    expect(keys.map((k) => k.key)).toEqual(['subagent_context_backfill_through', 'subagent_context_capture_since', 'subagent_context_execution_since']);
    for (const k of keys) expect(run.text).toMatch(new RegExp(`^\\s+${k.key} +${k.value.replace(/[.+]/g, '\\$&')}$`, 'm'));

    const since = parseInstant(keys.find((k) => k.key === 'subagent_context_capture_since')!.value)!;
    const messages = await target.query<{ task_session_id: string; task_id: string | null; metadata: string | null; at: string }>(
      `SELECT task_session_id, task_id, metadata, ${target.timeText('created_at')} AS at FROM task_session_messages`,
    );
    const rows = await target.query<{ task_session_id: string; tool_call_id: string; at: string }>(
      `SELECT task_session_id, tool_call_id, ${target.timeText('observed_at')} AS at FROM task_session_subagents`,
    );
    const expected = new Set<string>();
    const accounted = new Set<string>();
    for (const m of messages) {
      const meta = metadataOf(m.metadata);
      if ((meta.normalized as { kind?: unknown } | undefined)?.kind !== 'subagent_task' || parseInstant(m.at)! < since) continue;
      const key = `${m.task_session_id}:${meta.tool_call_id}`;
      accounted.add(key);
      if (m.task_session_id && m.task_id && meta.tool_call_id) expected.add(key);
    }
    const liveRows = rows.filter((r) => parseInstant(r.at)! >= since);
    const observed = new Set(liveRows.map((r) => `${r.task_session_id}:${r.tool_call_id}`));
    const shortfall = [...expected].filter((k) => !observed.has(k)).length;
    const excess = [...observed].filter((k) => !accounted.has(k)).length;
    const collisions = liveRows.length - observed.size;

    const health = printed(run.text, /shortfall (\d+) · excess (\d+) · collisions (\d+)/);
    expect(health.slice(1).map(Number)).toEqual([shortfall, excess, collisions]);
    // The resumed execution replayed the Claude Code fan-out: each of its launches' wire ids has two rows.
    expect(collisions).toBe(claudeLaunches('claude-fanout'));
    expect(expected.size).toBeGreaterThan(0);
  });

  it('plays whole recordings of real agents through the ACP recorder, and its counters add up', () => {
    const c = printed(
      run.text,
      /attempted (\d+) · persisted (\d+) · skipped_no_identity (\d+) · failed (\d+) · anomalous_value (\d+) · unknown_execution (\d+)/,
    )
      .slice(1)
      .map(Number);
    const [attempted, persisted, skipped, failed, anomalous, unknown] = c;
    const turns = [...run.text.matchAll(/^\s+- ([\w-]+): (\d+) notifications, (\d+) frames, (\d+) subagents — (.*)$/gm)].map((m) => ({
      name: m[1] as AcpFixtureName,
      updates: Number(m[2]),
      frames: Number(m[3]),
      says: m[5],
    }));
    expect(turns.length).toBeGreaterThanOrEqual(3);
    // Every update of each recording was played, and each one the recognizer takes for a subagent made a frame.
    for (const t of turns) expect([t.name, t.updates, t.frames]).toEqual([t.name, loadAcpFixture(t.name).length, subagentFrames(t.name)]);
    const sum = (ts: typeof turns, key: 'updates' | 'frames') => ts.reduce((n, t) => n + t[key], 0);
    expect(Number(printed(run.text, /Live, off the wire: (\d+) ACP notifications/)[1])).toBe(sum(turns, 'updates'));
    expect(attempted).toBe(sum(turns, 'frames'));
    expect(attempted).toBe(persisted + skipped + failed);
    // The turn without a task id is skipped whole, the one without an execution id is kept under 'unknown'.
    expect(skipped).toBe(
      sum(
        turns.filter((t) => t.says.includes('skipped_no_identity')),
        'frames',
      ),
    );
    expect(unknown).toBe(
      sum(
        turns.filter((t) => t.says.includes("'unknown'")),
        'frames',
      ),
    );
    expect([skipped > 0, unknown > 0, failed, anomalous]).toEqual([true, true, 0, 0]);
  });
});

describeBothDialects('demo safety and determinism', (dialect) => {
  const targets: DemoTarget[] = [];
  afterEach(async () => {
    for (const t of targets.splice(0)) await t.close();
  });
  const open = async () => {
    const t = await demoTarget(dialect);
    targets.push(t);
    return t;
  };
  /** The output without what legitimately varies: step timings, location, elapsed time. */
  const stable = (text: string) =>
    text
      .split('\n')
      .filter((l) => !/^(subagent-context demo ·|done in|\s+subagent-context report: |\s+(npx|sqlite3|psql) )/.test(l))
      .map((l) => l.replace(/\s+[\d.]+ ms\b/, ''))
      .join('\n');

  it('prints the same report on every run', async () => {
    const first = await open();
    const a = await captureDemo(first.args);
    // SQLite: the same file again (the demo replaces its own file); PostgreSQL: a second empty database.
    const b = await captureDemo(await byDialect(dialect, { sqlite: async () => first.args, postgres: async () => (await open()).args })());
    expect(stable(b.text)).toEqual(stable(a.text));
    expect(a.text).toContain('What it found');
  });

  it('by default prints the finding first, in about 30 lines, with figures the tables hold', async () => {
    const t = await open();
    const run = await captureDemo(t.args);
    expect([run.code, run.errors]).toEqual([EXIT.ok, '']);
    const e = await expectedFigures(t);
    const lines = run.text.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(32);
    // The headline is the fourth line: no step, key or caveat before it.
    expect(lines[2]).toBe('What it found');
    const headline = printed(
      lines[3],
      /^ {3}A card's work ran in ([\d.]+) contexts, not the ([\d.]+) session per card that task_sessions shows: ([\d,]+) subagents across ([\d,]+) cards \(([\d,]+) of them fanned out\)\.$/,
    );
    expect(headline.slice(1)).toEqual([
      decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2),
      decimals(e.cards.sessions / e.cards.tasks, 2),
      e.cards.contexts.toLocaleString('en-US'),
      String(e.cards.tasks),
      String(e.cards.tasksWithSubagents),
    ]);
    const all = [...e.fanOut.known, ...e.fanOut.unknown];
    const fan = printed(
      run.text,
      /([\d,]+) turns spawned subagents; ([\d,]+) of them spawned two or more, up to ([\d,]+) at once\. ([\d,]+) turns with a complete count, ([\d,]+) earlier turns/,
    );
    expect(fan.slice(1).map(num)).toEqual([
      all.reduce((n, [, turns]) => n + turns, 0),
      all.filter(([k]) => k >= 2).reduce((n, [, turns]) => n + turns, 0),
      Math.max(...all.map(([k]) => k)),
      [...e.fanOut.known.values()].reduce((a, b) => a + b, 0),
      e.fanOut.unknownTurns,
    ]);
    const tk = e.tokens;
    const tokens = printed(run.text, /([\d,]+) tokens over ([\d,]+) subagents that reported usage, ([\d,]+) each on average; ([\d,]+) more reported nothing/);
    expect(tokens.slice(1).map(num)).toEqual([tk.total, tk.measured, Math.round(tk.total / tk.measured), tk.unmeasured]);
    // Then the charts: the cards ratio and the fan-out recovered from history.
    const ratios = Object.fromEntries(bars(linesBetween(run.text, /^What it found$/, /subagents per turn, turns from the history/)));
    expect(ratios).toEqual({
      'sessions per card': decimals(e.cards.sessions / e.cards.tasks, 2),
      'contexts per card': `${decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2)}  (sessions + subagent contexts)`,
    });
    const histogram = bars(linesBetween(run.text, /subagents per turn, turns from the history/, /^What ran$/)).map(([k, rest]) => [
      Number(k),
      num(printed(rest, /^([\d,]+) turns?$/)[1]),
    ]);
    expect(histogram).toEqual(contiguous(e.fanOut.unknown));
    expect(num(printed(run.text, /([\d,]+) rows backfilled from history/)[1])).toBe(e.provenance.backfill);
    expect(printed(run.text, /Health check: (\w+), shortfall (\d+)\./).slice(1)).toEqual(['healthy', '0']);
    // The live turns came off the wire: one subagent per launch message the host wrote after capture began.
    const wire = printed(
      run.text,
      /([\d,]+) ACP notifications recorded from real Claude Code and OpenCode runs went through createAcpRecorder: ([\d,]+) subagents?,\n\s+([\d,]+) frames: ([\d,]+) persisted, ([\d,]+) skipped without a task id, ([\d,]+) failed\./,
    )
      .slice(1)
      .map(num);
    const since = parseInstant(e.keys.capture_since!)!;
    const launches = (
      await t.query<{ metadata: string | null; at: string }>(`SELECT metadata, ${t.timeText('created_at')} AS at FROM task_session_messages`)
    ).filter((m) => (metadataOf(m.metadata).normalized as { kind?: unknown } | undefined)?.kind === 'subagent_task' && parseInstant(m.at)! >= since);
    expect(wire[1]).toBe(launches.length);
    expect(wire[2]).toBe(wire[3] + wire[4] + wire[5]);
    expect(wire[0]).toBeGreaterThan(wire[2]); // most notifications are not a subagent's (chunks, usage, the subagents' own tools)
    expect(wire[3]).toBeGreaterThan(0);
    expect(run.text).toMatch(/^ {3}8 notes on how far these figures may be read: run with --verbose/m);
    expect(run.text).toContain('demo --verbose');
    expect(run.text).not.toMatch(/runMigrations|Read these first/);
  });

  it('refuses a database it did not make, and leaves it untouched', async () => {
    const t = await open();
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const db = new Database(t.args[1]);
      db.exec(`CREATE TABLE task_sessions (id TEXT PRIMARY KEY, task_id TEXT NOT NULL); INSERT INTO task_sessions VALUES ('real', 'card')`);
      db.close();
    } else {
      await t.query(`CREATE TABLE task_sessions (id TEXT PRIMARY KEY, task_id TEXT NOT NULL); INSERT INTO task_sessions VALUES ('real', 'card')`);
    }
    const result = await captureDemo(t.args);
    // Through the CLI's error path: one line on stderr, nothing on stdout, the usage exit code.
    expect(result.code).toBe(EXIT.usage);
    expect(result.text).toBe('');
    expect(result.errors).toMatch(/^subagent-context: refusing to run: .*task_sessions.*\n$/);
    expect(result.errors.split('\n')).toHaveLength(2);
    expect(await t.query(`SELECT id FROM task_sessions`)).toEqual([{ id: 'real' }]);
  });

  it("checks its arguments with the CLI's own checks, before touching any database", async () => {
    const t = await open();
    const scratch = mkdtempSync(join(tmpdir(), 'subagent-context-demo-args-'));
    try {
      const otherFile = join(scratch, 'other.db');
      const other = byDialect(dialect, { sqlite: ['--postgres', 'postgres://127.0.0.1:1/none'], postgres: ['--sqlite', otherFile] });
      const both = await captureDemo([...t.args, ...other]);
      expect(both.code).toBe(EXIT.usage);
      expect(both.errors).toMatch(/^subagent-context: give either --sqlite or --postgres, not both\n$/);
      const badUrl = await captureDemo(['--postgres', 'mysql://x/y']);
      expect(badUrl.code).toBe(EXIT.usage);
      expect(badUrl.errors).toMatch(/--postgres needs a postgres:\/\/ or postgresql:\/\/ URL/);
      expect([both.text, badUrl.text]).toEqual(['', '']);
      // Nothing was written: no demo table in the target, no file created.
      expect(existsSync(otherFile)).toBe(false);
      if (byDialect(dialect, { sqlite: false, postgres: true }))
        expect(await t.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
      else expect(existsSync(t.args[1])).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
