// A SQLite host writer on a connection of its own, for the tests of what the backfill does when
// someone else commits meanwhile (test/migrations-backfill-staged-keys.test.ts,
// test/migrations-backfill-chunked.test.ts).
import Database from 'better-sqlite3';

/**
 * Two commits through a new connection to `file`, which leave every table as it was: a
 * kandev_meta key inserted, then deleted. data_version then moves for every other connection.
 * Each commit changes a row, because SQLite writes no page (and commits nothing) for a write
 * that leaves a row's bytes as they were.
 */
export function commitFromAnotherConnection(file: string): void {
  const other = new Database(file);
  try {
    other.prepare(`INSERT INTO kandev_meta (key, value) VALUES ('test_another_connection', 'x')`).run();
    other.prepare(`DELETE FROM kandev_meta WHERE key = 'test_another_connection'`).run();
  } finally {
    other.close();
  }
}
