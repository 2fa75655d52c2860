// Crash safety (issue 7): runMigrations() runs in a child process against a large store and
// is SIGKILLed at a seeded random moment during the backfill, or during the legacy rebuild.
// After every kill the database must satisfy the invariants below, and a clean run must then
// succeed and complete the work. A kill only counts toward the quota when the database shows
// it landed before that phase committed (keys absent / table still pre-amendment). The clean
// run after each kill is the next boot: runMigrations() in this process, on a connection of its
// own (the killed runs are host processes; a child each for the clean runs too cost a second
// process start per kill, a fifth of the suite's longest file).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../../src/migrations/backfill-step.js';
import { prng } from '../helpers/prng.js';
import { describeBothDialects, type Dialect } from '../helpers/test-db.js';
import type { Phase } from './crash-store-seed.js';
import { migrateInProcess, postgresCopies, sqliteCopies, type Probe, type StoreCopies } from './crash-stores.js';
import { byDialect } from '../helpers/by-dialect.js';
import { LEGACY_COLUMNS } from '../helpers/migration-db.js';

const KILLS_PER_PHASE = Number(process.env.SUBAGENT_CONTEXT_CRASH_KILLS ?? 20);
const SEED = 0xc0ffee;
/** The step whose commit ends each phase; the kills are aimed inside its span. */
const PHASE_STEP: Record<Phase, string> = { backfill: 'backfill_subagent_contexts', legacy_rebuild: 'upgrade_pre_amendment_table' };
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'migrate-child.mjs');

interface ChildRun {
  killed: boolean;
  ms: number;
  /** When each applied step finished, in ms after `start`, in the order the steps ran. */
  steps: Array<{ name: string; at: number }>;
  report: { ok: boolean } | null;
}

/** Runs the child; kills it `delayMs` after it printed `start`. Resolves how it ended. */
function runChild(dialect: Dialect, location: string, delayMs: number | null): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dialect, location], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let started = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!started && stdout.includes('start\n')) {
        started = performance.now();
        if (delayMs !== null) setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const ms = started ? performance.now() - started : 0;
      const lines = stdout.split('\n');
      const steps = lines.filter((l) => l.startsWith('step ')).map((l) => ({ name: l.split(' ')[1], at: Number(l.split(' ')[2]) }));
      const reportLine = lines.find((l) => l.startsWith('report '));
      const report = reportLine ? (JSON.parse(reportLine.slice('report '.length)) as { ok: boolean }) : null;
      if (signal === 'SIGKILL') resolve({ killed: true, ms, steps, report });
      else if (code === 0) resolve({ killed: false, ms, steps, report });
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

async function tableNames(p: Probe, dialect: Dialect): Promise<string[]> {
  const rows = await byDialect(dialect, {
    sqlite: () => p.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'task_session_subagents%'"),
    postgres: () =>
      p.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'task_session_subagents%'"),
  })();
  return rows.map((r) => r.name).sort();
}

async function hasExecutionColumn(p: Probe, dialect: Dialect): Promise<boolean> {
  const rows = await byDialect(dialect, {
    sqlite: () => p.query("SELECT 1 FROM pragma_table_info('task_session_subagents') WHERE name = 'agent_execution_id'"),
    postgres: () => p.query("SELECT 1 FROM information_schema.columns WHERE table_name = 'task_session_subagents' AND column_name = 'agent_execution_id'"),
  })();
  return rows.length === 1;
}

async function keys(p: Probe, dialect: Dialect): Promise<Record<string, string>> {
  // A kill before ensure_kandev_meta leaves a pre-amendment store without the host table.
  const exists = await byDialect(dialect, {
    sqlite: () => p.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kandev_meta'"),
    postgres: () => p.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tablename = 'kandev_meta'"),
  })();
  if (exists.length === 0) return {};
  const rows = await p.query<{ key: string; value: string }>('SELECT key, value FROM kandev_meta');
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/**
 * Every legacy row's original values, quoted (NULL, '' and 'NULL' differ), a line per row in id
 * order, joined by the database: one string, not 25,000 rows (SQLite: 110 ms, not 370, twice a kill).
 */
async function legacySnapshot(p: Probe, dialect: Dialect): Promise<string> {
  const value = (c: string) => byDialect(dialect, { sqlite: `quote(${c})`, postgres: `quote_nullable(${c}::text)` });
  const line = LEGACY_COLUMNS.map(value).join(` || ',' || `);
  const joined = byDialect(dialect, {
    sqlite: `SELECT group_concat(${line}, char(10) ORDER BY id) AS rows FROM task_session_subagents WHERE tool_call_id LIKE 'legacy_%'`,
    postgres: `SELECT string_agg(${line}, E'\\n' ORDER BY id) AS rows FROM task_session_subagents WHERE tool_call_id LIKE 'legacy_%'`,
  });
  const [row] = await p.query<{ rows: string | null }>(joined);
  return row.rows ?? '';
}

async function count(p: Probe, sql: string): Promise<number> {
  const [row] = await p.query<{ n: number | string }>(sql);
  return Number(row.n);
}

/** The invariants that must hold after ANY kill, and after every clean run. */
async function assertInvariants(p: Probe, dialect: Dialect, phase: Phase, legacy: string, expectedBackfill: number): Promise<Record<string, string>> {
  expect(await tableNames(p, dialect)).toEqual(['task_session_subagents']); // no missing or half-rebuilt table
  const k = await keys(p, dialect);
  // No partial key pair (AC-24d) ...
  expect(ACTIVATION_KEYS.captureSince in k).toBe(ACTIVATION_KEYS.backfillThrough in k);
  // ... and no key without its rows. The backfill runs in chunks, each committed on its own
  // (docs/migrations.md, "The backfill in chunks"): a kill between chunks leaves some of its
  // rows, never more than it owes, and then always its kept mark, from which the next boot resumes;
  // once the keys exist, every row is there and the progress keys are gone.
  const backfilled = await count(p, "SELECT COUNT(*) AS n FROM task_session_subagents WHERE source = 'backfill'");
  if (ACTIVATION_KEYS.captureSince in k) {
    expect(backfilled).toBe(expectedBackfill);
    expect(BACKFILL_PROGRESS_KEYS.through in k || BACKFILL_PROGRESS_KEYS.cursor in k).toBe(false);
  } else {
    expect(backfilled).toBeLessThanOrEqual(expectedBackfill);
    if (backfilled > 0) expect(BACKFILL_PROGRESS_KEYS.through in k).toBe(true);
  }
  // execution_since only over the amended shape (AC-33b).
  if (ACTIVATION_KEYS.executionSince in k) expect(await hasExecutionColumn(p, dialect)).toBe(true);
  // Exactly one row per key.
  const key = (await hasExecutionColumn(p, dialect)) ? 'task_session_id, agent_execution_id, tool_call_id' : 'task_session_id, tool_call_id';
  expect(await count(p, `SELECT COUNT(*) AS n FROM (SELECT ${key} FROM task_session_subagents GROUP BY ${key} HAVING COUNT(*) > 1) AS d`)).toBe(0);
  // Every legacy row present with its original values (line by line on a difference: a readable diff).
  const now = phase === 'legacy_rebuild' ? await legacySnapshot(p, dialect) : legacy;
  if (now !== legacy) expect(now.split('\n')).toEqual(legacy.split('\n'));
  return k;
}

describeBothDialects('crash safety', (dialect) => {
  const copies = new Map<Phase, StoreCopies>();
  beforeAll(async () => {
    for (const phase of ['backfill', 'legacy_rebuild'] as const)
      copies.set(phase, await byDialect(dialect, { sqlite: () => sqliteCopies(phase), postgres: () => postgresCopies(phase) })());
  }, 300_000);
  afterAll(async () => {
    for (const c of copies.values()) await c.dispose();
  });

  for (const phase of ['backfill', 'legacy_rebuild'] as const) {
    it(`survives ${KILLS_PER_PHASE} SIGKILLs during the ${phase}`, async () => {
      const c = copies.get(phase)!;
      const r = prng(SEED + (phase === 'backfill' ? 1 : 2) + byDialect(dialect, { sqlite: 10, postgres: 20 }));
      // Calibrate: the original legacy rows, the expected backfill, and how long a pass takes.
      const calibration = await c.fresh();
      let probe = await c.probe(calibration);
      const legacy = phase === 'legacy_rebuild' ? await legacySnapshot(probe, dialect) : '';
      if (phase === 'legacy_rebuild') expect(legacy.split('\n').length).toBeGreaterThan(100);
      await probe.close();
      const clean = await runChild(dialect, calibration, null);
      probe = await c.probe(calibration);
      const expectedBackfill = await count(probe, "SELECT COUNT(*) AS n FROM task_session_subagents WHERE source = 'backfill'");
      expect(expectedBackfill).toBeGreaterThan(100);
      await probe.close();
      await c.drop(calibration);
      // Aim inside the phase: from the end of the step before it to its own commit, as full
      // passes timed them. A uniform delay over the whole pass missed short phases (PostgreSQL 15
      // rebuilds 25,000 rows in a small fraction of a pass) and the run gave up. The window only
      // narrows: every later full pass that logged the phase (a kill after it, or no kill at all)
      // lowers its bounds, so a slow calibration pass cannot aim the kills past the phase.
      const window = { start: Infinity, end: Infinity };
      const narrow = (run: ChildRun) => {
        const at = run.steps.findIndex((s) => s.name === PHASE_STEP[phase]);
        if (at < 0) return;
        window.start = Math.min(window.start, at > 0 ? run.steps[at - 1].at : 0);
        window.end = Math.min(window.end, run.steps[at].at);
        if (window.start >= window.end) window.start = 0;
      };
      narrow(clean);
      expect(window.end, `the clean pass applied ${PHASE_STEP[phase]}`).toBeLessThan(Infinity);

      let landed = 0;
      let attempts = 0;
      let finishedFirst = 0;
      while (landed < KILLS_PER_PHASE) {
        expect(attempts++, 'kills keep missing the phase').toBeLessThan(KILLS_PER_PHASE * 4);
        const location = await c.fresh();
        let open: Probe | null = null;
        try {
          const outcome = await runChild(dialect, location, window.start + r.next() * (window.end - window.start));
          narrow(outcome);
          open = probe = await c.probe(location);
          const k = await assertInvariants(probe, dialect, phase, legacy, expectedBackfill);
          const interrupted = phase === 'backfill' ? !(ACTIVATION_KEYS.captureSince in k) : !(await hasExecutionColumn(probe, dialect));
          await probe.close();
          open = null;
          if (outcome.killed && interrupted) landed++;
          if (!outcome.killed) finishedFirst++;
          // A clean run afterwards must succeed and finish the job.
          const after = await migrateInProcess(dialect, location);
          expect(after.ok, JSON.stringify(after.steps)).toBe(true);
          open = probe = await c.probe(location);
          const k2 = await assertInvariants(probe, dialect, phase, legacy, expectedBackfill);
          expect(Object.keys(k2).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
          expect(await hasExecutionColumn(probe, dialect)).toBe(true);
          await probe.close();
          open = null;
        } finally {
          await open?.close().catch(() => {});
          await c.drop(location);
        }
      }
      expect(landed).toBe(KILLS_PER_PHASE);
      console.log(
        `[crash-safety] ${dialect} ${phase}: ${landed} SIGKILLs landed before the phase committed, in ${attempts} runs ` +
          `(${finishedFirst} finished before their kill); a clean pass took ${clean.ms.toFixed(0)} ms, the phase at most ${window.start.toFixed(0)}–${window.end.toFixed(0)} ms of it; invariants held after every run`,
      );
    }, 900_000);
  }
});
