// Databases a test opens as it needs them, closed after each test (afterEach): for suites
// whose tests open one, two or three databases of different layers each.
import { afterEach } from 'vitest';
import { openTestDb, type Dialect, type TestDb } from './test-db.js';

/** Registers the afterEach that closes them; returns the opener (openTestDb's layers). */
export function testDbsPerTest(dialect: Dialect): (...layers: ('package' | 'legacy')[]) => Promise<TestDb> {
  const open: TestDb[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
  });
  return async (...layers) => {
    const d = await openTestDb(dialect, ...layers);
    open.push(d);
    return d;
  };
}
