// `subagent-context health`, the real binary against a real SQLite file and PostgreSQL
// database: one run per verdict, checking the human output's figures, the --json report
// (identical to checkHealth()'s), and the documented exit code of each verdict.
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const T0 = 1_785_000_000_000_000_000n;
const CAPTURE = formatKeyInstant(T0);

beforeAll(assertBuilt);

describeBothDialects('cli: health', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());

  const activate = async () => {
    await setKeys(db, { [KEY.captureSince]: CAPTURE, [KEY.backfillThrough]: '', [KEY.executionSince]: CAPTURE });
  };
  const health = (...extra: string[]) => runCliBinary(['health', ...databaseArgs(db), ...extra]);

  it('healthy: exit 0, every figure printed, --json is the library report', async () => {
    await activate();
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, T0 + SECOND) });
    await insertSubagentRow(db, { id: 'r1', sessionId: 's1', toolCallId: 'tc-1', observedAt: hostTimestamp(db, T0 + SECOND) });
    await insertSubagentRow(db, { id: 'r2', sessionId: 's1', toolCallId: 'tc-2', observedAt: hostTimestamp(db, T0 + 2n * SECOND) });
    const human = await health();
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^\s+capture_since\s+2026-07-25T17:20:00\.000000000Z$/m);
    expect(human.stdout).toMatch(/^\s+backfill_through\s+''\s+the backfill matched nothing/m);
    expect(human.stdout).toMatch(/^state\s+activated/m);
    expect(human.stdout).toMatch(/^shortfall\s+0\s/m);
    expect(human.stdout).toMatch(/^excess\s+1\s/m);
    expect(human.stdout).toMatch(/^collisions\s+0\s/m);
    expect(human.stdout).toMatch(/^last observed\s+2026-07-25T17:20:02\.000000Z\s/m);
    expect(human.stdout).toMatch(/^verdict: healthy/m);

    const json = await health('--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await db.store().checkHealth());
  });

  it('shortfall: exit 3 and the count in the verdict line', async () => {
    await activate();
    await insertSubagentRow(db, { id: 'r1', sessionId: 's1', toolCallId: 'tc-1', observedAt: hostTimestamp(db, T0 + SECOND) });
    await insertSubagentMessage(db, { id: 'm2', sessionId: 's1', toolCallId: 'tc-missed', createdAt: hostTimestamp(db, T0 + 2n * SECOND) });
    const run = await health();
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^shortfall\s+1\s/m);
    expect(run.stdout).toMatch(/^verdict: SHORTFALL: 1 subagent since capture_since has no row/m);
    const json = await health('--json');
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ shortfall: 1, verdict: 'shortfall' });
  });

  it('not activated: exit 4, the comparison reported as not run (AC-28a)', async () => {
    await setKeys(db, { [KEY.executionSince]: CAPTURE });
    const run = await health();
    expect(run.code).toBe(4);
    expect(run.stdout).toMatch(/^\s+capture_since\s+absent$/m);
    expect(run.stdout).toMatch(/^state\s+execution_only/m);
    expect(run.stdout).toMatch(/^comparison\s+not run\s/m);
    expect(run.stdout).not.toMatch(/^shortfall/m);
    expect(run.stdout).toMatch(/^verdict: NOT ACTIVATED/m);
    const json = await health('--json');
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({
      state: 'execution_only',
      shortfall: null,
      excess: null,
      collisions: null,
      last_observed_at: null,
      verdict: 'not_activated',
    });
  });

  it('nothing since activation: exit 5, never healthy (AC-29)', async () => {
    await activate();
    await insertSubagentRow(db, { id: 'r-old', sessionId: 's1', toolCallId: 'tc-old', source: 'backfill', observedAt: hostTimestamp(db, T0 - SECOND) });
    const run = await health();
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/^last observed\s+none\s/m);
    expect(run.stdout).toMatch(/^verdict: NOTHING SINCE ACTIVATION/m);
    // How long capture has been on, from capture_since to now, so an operator can judge a quiet spell.
    const days = Math.floor((Date.now() - Number(T0 / 1_000_000n)) / 86_400_000);
    expect(days).toBeGreaterThan(2);
    expect(run.stdout).toMatch(new RegExp(`^  what it means: capture began (${days}|${days + 1}) days ago, and since then no subagent has been launched`, 'm'));
    expect(JSON.parse((await health('--json')).stdout)).toMatchObject({ last_observed_at: null, verdict: 'nothing_since_activation' });
  });

  it('a capture_since that is not an instant: exit 7 and one line naming the key', async () => {
    await setKeys(db, { [KEY.captureSince]: 'not-a-time' });
    const run = await health();
    expect(run.code).toBe(7);
    expect(run.stdout).toBe('');
    expect(oneLineError(run)).toMatch(/subagent_context_capture_since is not an instant/);
  });

  it('missing package tables: exit 7 and one line saying to migrate', async () => {
    await db.exec('DROP TABLE task_session_subagents');
    await db.exec('DROP TABLE kandev_meta');
    const run = await health();
    expect(run.code).toBe(7);
    expect(oneLineError(run)).toMatch(/missing table kandev_meta.*subagent-context migrate/);
  });
});

describeBothDialects('cli: health on a store set up a moment ago', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'host');
  });
  afterEach(async () => db.close());

  it('before any subagent: exit 5, and the text says "no activity yet" is not a dead writer', async () => {
    const migrate = await runCliBinary(['migrate', ...databaseArgs(db)]);
    expect(migrate.code, migrate.stderr).toBe(0);
    const run = await runCliBinary(['health', ...databaseArgs(db)]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(5); // documented: nothing observed is never healthy, also on a new store
    expect(run.stdout).toMatch(/^verdict: NOTHING SINCE ACTIVATION/m);
    expect(run.stdout).toMatch(/^ {2}what it means: capture began (less than a minute|1 minute) ago, and since then no subagent has been launched/m);
    const text = run.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('that is "no activity yet", not a dead writer');
    expect(text).toContain('a writer that loses launches the host recorded shows SHORTFALL (exit 3)');
    expect(text).toContain('Exit 5 stays until the first subagent is recorded');
  });

  it('a writer that lost a launch is a shortfall, not "no activity yet"', async () => {
    expect((await runCliBinary(['migrate', ...databaseArgs(db)])).code).toBe(0);
    await insertSession(db, 's1');
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, BigInt(Date.now() + 1000) * 1_000_000n) });
    const run = await runCliBinary(['health', ...databaseArgs(db)]);
    expect(run.code).toBe(3);
    expect(run.stdout).not.toContain('no activity yet');
  });
});
