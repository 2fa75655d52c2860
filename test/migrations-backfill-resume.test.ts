// Issue 32 item 2: a host process killed (SIGKILL) between or inside any chunk of the backfill,
// again and again, and then booted once more, ends with exactly the rows an uninterrupted run
// writes — no duplicate, no gap — and each activation key written once, with the high-water
// mark read before the first chunk of the first run. Progress lives in the database only: each
// attempt is a new process. A trigger makes every backfilled row slow in the killed processes,
// so a chunk's transaction is open most of the time and most kills land inside one; the
// others land between chunks. The reference is the single statement over the whole range.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';
import { seedBusyHostStore } from './helpers/busy-host-store.js';
import { byDialect } from './helpers/by-dialect.js';
import { metaKeys, stageProgressKeys } from './helpers/migration-db.js';
import { prng } from './helpers/prng.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SLOW_ROW_MS = 30;
const PAUSE_MS = 200;
const SESSIONS = 31; // coprime with SUBAGENT_EVERY: every session holds qualifying messages
type Walk = 'sessions' | 'windows';

/** Runs one booting process; resolves with its stdout when it exits or is killed `killAfterMs` after its first chunk. */
function bootAndMaybeKill(db: TestDb, walk: Walk, killAfterMs: number | null): Promise<{ out: string; killed: boolean }> {
  // The built package, as a host runs it (npm test builds it before the tests).
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'test/fixtures/backfill-kill-child.mjs',
      db.dialect,
      db.location,
      // Chunks of two sessions, or windows of 400 s (400 messages, about 12 rows each: PostgreSQL's window walk).
      JSON.stringify({ maxSessions: 2, slowRowMs: SLOW_ROW_MS, pauseMs: PAUSE_MS, walk, maxWindowMs: 400_000 }),
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  let killed = false;
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.on('data', (c: Buffer) => {
    const first = !out.includes('chunk ');
    out += c.toString();
    if (first && out.includes('chunk ') && killAfterMs !== null) {
      setTimeout(() => {
        if (child.exitCode === null) {
          killed = true;
          child.kill('SIGKILL');
        }
      }, killAfterMs);
    }
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' || code === 0) resolve({ out, killed });
      else reject(new Error(`child exited ${code}: ${err}`));
    }),
  );
}

describeBothDialects('runMigrations: the backfill resumes after SIGKILL (issue 32)', (dialect) => {
  let db: TestDb;
  afterEach(async () => db?.close());

  for (const walk of byDialect(dialect, { sqlite: ['sessions'] as Walk[], postgres: ['sessions', 'windows'] as Walk[] }))
    it(`killed inside and between chunks, then booted again: the rows of an uninterrupted run, each key written once (${walk})`, async () => {
      db = await openTestDb(dialect, 'package');
      // Every session holds qualifying messages, so every chunk writes rows.
      await seedBusyHostStore(db, { sessions: SESSIONS, messages: 6_000, descriptionChars: 20 });
      const reference = await singleStatementRows(db);
      expect(reference.rows.length).toBeGreaterThan(50);

      await db.exec(`CREATE TABLE meta_writes (key TEXT NOT NULL)`);
      await db.exec(
        byDialect(dialect, {
          sqlite: `CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); END`,
          postgres: `CREATE FUNCTION audit_meta() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); RETURN NULL; END $f$;
           CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta FOR EACH ROW EXECUTE FUNCTION audit_meta();
           CREATE FUNCTION slow_row() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN PERFORM pg_sleep(${SLOW_ROW_MS / 1000}); RETURN NULL; END $f$;
           CREATE TRIGGER slow_backfill AFTER INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION slow_row();`,
        }),
      );

      const r = prng(32);
      let kills = 0;
      let marks: string[] = [];
      for (let attempt = 0; attempt < 12 && kills < 6; attempt++) {
        // Alternately in the pause after the first chunk (between chunks) and well inside the
        // second chunk's transaction (PAUSE_MS, then rows of SLOW_ROW_MS each).
        const delay = attempt % 2 ? PAUSE_MS + 60 + r.int(200) : r.int(PAUSE_MS - 50);
        const { killed } = await bootAndMaybeKill(db, walk, delay);
        if (!killed) break;
        kills++;
        const keys = await metaKeys(db);
        expect(keys[ACTIVATION_KEYS.captureSince]).toBeUndefined();
        marks.push(keys[BACKFILL_PROGRESS_KEYS.through]);
      }
      expect(kills).toBe(6);
      // The mark read before the first chunk of the first run is the one every later run keeps.
      marks = [...new Set(marks)];
      expect(marks).toEqual([reference.through]);

      if (dialect === 'postgres') await db.exec(`DROP TRIGGER slow_backfill ON task_session_subagents`);
      const last = await bootAndMaybeKill(db, walk, null);
      const report = JSON.parse(last.out.slice(last.out.indexOf('report ') + 'report '.length));
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);

      expect(await backfilledRows(db)).toEqual(reference.rows);
      const keys = await metaKeys(db);
      expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(reference.through);
      expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
      const writes = (await db.query<{ key: string }>(`SELECT key FROM meta_writes`)).map((w) => w.key).sort();
      // Each activation key once; the mark once (the cursor is written once, then updated; so are
      // SQLite's first-phase keys, whichever process wrote them).
      expect(writes).toEqual(
        [
          ...Object.values(ACTIVATION_KEYS),
          BACKFILL_PROGRESS_KEYS.through,
          walk === 'windows' ? BACKFILL_PROGRESS_KEYS.windowTop : BACKFILL_PROGRESS_KEYS.cursor,
          ...stageProgressKeys(db.dialect),
        ].sort(),
      );
    }, 240_000);
});
