// A SQLite host writer on a connection of its own, and a count of json_valid calls: for the tests
// of which way SQLite's backfill chunks rank their candidates when someone else commits
// meanwhile (test/migrations-backfill-staged-keys.test.ts, test/migrations-backfill-chunked.test.ts).
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

/**
 * Replaces json_valid on `db` with a counting function that answers as SQLite's does for the
 * documents these tests store (JSON.parse accepts exactly the well-formed ones among them). Only
 * the long way of a phase-2 chunk calls it (the staged way reads the winners' fields with
 * json_type and json_extract), so the calls after phase 1 tell the two apart.
 */
export function countJsonValid(db: Database.Database): { calls: number } {
  const counter = { calls: 0 };
  db.function('json_valid', (doc: unknown) => {
    counter.calls++;
    if (doc === null) return null;
    try {
      JSON.parse(String(doc));
      return 1;
    } catch {
      return 0;
    }
  });
  return counter;
}
