// recordFrame/recordFrames never reject (AC-27) and keep attempted = skipped + persisted +
// failed (AC-26), whatever a host or an agent hands them:
// - a thrown value with no string form (Object.create(null), an Error whose `message` getter
//   throws, a Proxy whose traps throw), from a frame's getter, its usage, the options' client
//   or a batch's element, used to make the WARN's description throw, and the call reject with
//   the batch's valid frames neither written nor counted;
// - an array (a Proxy: Array.isArray is true) whose length is no array length (-1, 1.5, 2^32)
//   used to reject with new Array's RangeError; it is an unreadable batch, WARNed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubagentFrame, WriterCounters } from '../src/index.js';
import { describeError } from '../src/logger.js';
import { steppingClock } from './helpers/clock.js';
import { frame, storedToolCallIds } from './helpers/live-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { byDialect } from './helpers/by-dialect.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const identityHolds = (c: WriterCounters) => c.attempted === c.skipped_no_identity + c.persisted + c.failed;

/** Values that have no string form: String() and `.message` throw on each. */
class MessageThrows extends Error {
  override get message(): string {
    throw new Error('message getter exploded');
  }
}
const trapsThrow = () =>
  new Proxy(
    {},
    {
      getPrototypeOf: () => {
        throw Object.create(null);
      },
      get: () => {
        throw Object.create(null);
      },
    },
  );
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const unprintable: [string, () => unknown][] = [
  ['a null-prototype object', () => Object.create(null)],
  ['an Error whose message getter throws', () => new MessageThrows()],
  ['a Proxy whose traps throw', trapsThrow],
  ['a revoked Proxy', revoked],
];

/** A frame whose `field` getter throws `thrown()`. */
const throwingOn = (field: keyof SubagentFrame, thrown: () => unknown, toolCallId: string): SubagentFrame =>
  Object.defineProperty(frame({ toolCallId }), field, {
    enumerable: true,
    get: () => {
      throw thrown();
    },
  });

describe('write review: describeError is total', () => {
  it.each(unprintable)('%s gives a line, never a throw', (_name, thrown) => {
    const described = describeError(thrown());
    expect(typeof described.error).toBe('string');
    expect(described.error).toMatch(/no string form/);
  });

  it('an ordinary error keeps its message and code', () => {
    expect(describeError(Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' }))).toEqual({ error: 'disk full', code: 'SQLITE_FULL' });
    expect(describeError('plain')).toEqual({ error: 'plain' });
  });
});

describeBothDialects('write review: unreadable input never rejects', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it.each(unprintable)('thrown as %s: every frame is counted and WARNed, the valid ones written', async (_name, thrown) => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    expect(await store.recordFrame(throwingOn('sessionId', thrown, 'x'))).toBe('failed');
    expect(await store.recordFrame(throwingOn('toolStatus', thrown, 'status'))).toBe('failed');
    // The row does not depend on its usage: written, the ledger counted as failed.
    expect(await store.recordFrame(throwingOn('usage', thrown, 'usage'))).toBe('persisted');
    const batch = [frame({ toolCallId: 'before' }), throwingOn('toolStatus', thrown, 'in-batch'), frame({ toolCallId: 'after' })];
    Object.defineProperty(batch, 3, {
      enumerable: true,
      get: () => {
        throw thrown();
      },
    });
    expect(await store.recordFrames(batch)).toEqual(['persisted', 'failed', 'persisted', 'failed']);
    // A client option that cannot be read fails the frames, never the call.
    const options = Object.defineProperty({}, 'client', {
      get: () => {
        throw thrown();
      },
    });
    expect(await store.recordFrame(frame({ toolCallId: 'opt' }), options)).toBe('failed');
    expect(await store.recordFrames([frame({ toolCallId: 'opt1' }), frame({ toolCallId: 'opt2' })], options)).toEqual(['failed', 'failed']);

    expect(await storedToolCallIds(db)).toEqual(['after', 'before', 'usage']);
    const counters = store.counters();
    expect(counters).toMatchObject({ attempted: 10, persisted: 3, failed: 7, ledger_failed: 1 });
    expect(identityHolds(counters)).toBe(true);
    expect(logger.lines).toHaveLength(8);
    for (const line of logger.lines) expect(typeof line.fields.error).toBe('string');
  });

  it('a database error with no string form fails its own frame of a batch, never the others', async () => {
    // The database raises a value with no string form on frame 'bad' only: SQLite through a host
    // trigger calling a host function that throws it; PostgreSQL through the host's client (a
    // wrapper, inside the host's transaction). The writers' own catch turned it into an Error
    // by String(), which threw, and the whole batch failed with it (a review of the fixes).
    const store = db.store({ clock: steppingClock(), logger: recordingLogger() });
    const bad = () => Object.create(null) as object;
    const batch = [frame({ toolCallId: 'good1' }), frame({ toolCallId: 'bad' }), frame({ toolCallId: 'good2' })];
    const outcomes = await byDialect(dialect, {
      sqlite: async () => {
        db.sqlite!.function('host_audit', (id: unknown) => {
          if (id === 'bad') throw bad();
          return 1;
        });
        await db.exec('CREATE TRIGGER host_audit BEFORE INSERT ON task_session_subagents BEGIN SELECT host_audit(NEW.tool_call_id); END');
        return store.recordFrames(batch);
      },
      postgres: async () => {
        const client = await db.pool!.connect();
        try {
          await client.query('BEGIN');
          const wrapper = {
            query: (config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
              const [text, params] = typeof config === 'string' ? [config, values] : [config.text, config.values];
              // The id 'bad' as a whole string, a parameter of its own or inside the batch's JSON
              // (quotes escaped there): a row's random UUID can hold the letters too (one run failed so).
              if (!/^(SAVEPOINT|RELEASE|ROLLBACK)/.test(text) && /\\?"bad\\?"/.test(JSON.stringify(params ?? []))) throw bad();
              return client.query(config as never, values as never);
            },
          };
          const result = await store.recordFrames(batch, { client: wrapper as never });
          await client.query('COMMIT');
          return result;
        } finally {
          client.release();
        }
      },
    })();
    expect(outcomes).toEqual(['persisted', 'failed', 'persisted']);
    expect(await storedToolCallIds(db)).toEqual(['good1', 'good2']);
  });

  it('a batch whose length is no array length is an unreadable batch: a WARN, nothing counted, never a rejection', async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const lengths: unknown[] = [-1, 1.5, 2 ** 32, Number.NaN, Infinity, '1'];
    for (const length of lengths) {
      const frames = new Proxy([frame({ toolCallId: 'never' })], { get: (target, key) => (key === 'length' ? length : Reflect.get(target, key)) });
      expect(await store.recordFrames(frames)).toEqual([]);
    }
    const lengthThrows = new Proxy([frame({ toolCallId: 'never' })], {
      get: (target, key) => {
        if (key === 'length') throw Object.create(null);
        return Reflect.get(target, key);
      },
    });
    expect(await store.recordFrames(lengthThrows)).toEqual([]);
    expect(await store.recordFrames(revoked() as SubagentFrame[])).toEqual([]); // Array.isArray throws on it
    expect(logger.lines.map((l) => l.msg)).toEqual(Array(lengths.length + 2).fill('subagent context batch could not be read; nothing was recorded'));
    expect(String(logger.lines[0].fields.error)).toMatch(/length of -1/);
    expect(store.counters()).toMatchObject({ attempted: 0, persisted: 0, skipped_no_identity: 0, failed: 0 });
    // The store goes on as before.
    expect(await store.recordFrames([frame({ toolCallId: 'real' })])).toEqual(['persisted']);
    expect(await storedToolCallIds(db)).toEqual(['real']);
  });
});
