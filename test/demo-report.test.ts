// The demo cannot silently lie: it runs on a real database per dialect, then every figure it
// printed is re-derived here from the tables with the test's own SQL and compared. Its
// measurements come from store.report(); the test does not call report() or reuse its
// statements: it reads the raw rows and counts them in JavaScript (fan-out eras, token
// buckets and groups, executions), as it does for the health comparison. The seeded history is also
// checked against the spec's "Sampled input shapes" through what the backfill recovered.
// The demo runs as `subagent-context demo` through the CLI's dispatcher (in process), so its
// exit codes, output stream and error stream are the CLI's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.js';
import { parseInstant } from '../src/instant.js';
import { describeBothDialects } from './helpers/test-db.js';
import {
  bars,
  captureDemo,
  claudeLaunches,
  compact,
  contiguous,
  decimals,
  demoTarget,
  groupBars,
  linesBetween,
  metadataOf,
  num,
  printed,
  reportBlock,
  toCounts,
  type DemoTarget,
} from './helpers/demo-run.js';
import { expectedFigures, type ExpectedFigures } from './helpers/demo-expected-figures.js';

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
        /^([\d,]+) settled subagents? reported no token usage \(total_tokens NULL, or a stored 0 or negative, which is no measurement\).* cover the ([\d,]+) measured subagents? only/,
        [e.tokens.unmeasured, e.tokens.measured],
      ],
      [/^([\d,]+) subagents? had not settled when read/, [e.tokens.outstanding]],
    ];
    // "N. sentence": numbered from 1, in plain words: no spec criterion code anywhere in the demo's output.
    const notes = [...block.matchAll(/^\s+(\d+)\. (.*)$/gm)];
    expect(notes.map((m) => Number(m[1]))).toEqual(notes.map((_, i) => i + 1));
    expect(run.text).not.toMatch(/\bAC-\d/);
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
});
