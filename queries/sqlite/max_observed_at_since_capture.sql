/*
 * AC-29 attribution, scoped (revision 4): the newest observed_at among rows observed at or
 * after capture_since, with the shortfall's own comparison and bare-column terms. Unscoped, backfilled or legacy
 * rows would answer and read as a healthy writer; scoped, NULL means "the writer has
 * produced nothing since activation", which the health verdict never reports as healthy.
 * The utc9 form is fixed width, so its MAX is the latest instant whatever form each row
 * was stored in; it comes back as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (docs/timestamps.md).
 *
 * Inlined fragments, each copy marked with its name and pinned to one canonical text by
 * test/sql-fragment-pin.test.ts: utc9. Inlined rather than shared because SQLite's SQL
 * cannot define a function, and a view could serve only the package's own table, never the
 * host's messages (DESIGN §3): one pin covers every copy (reasons in that test's header).
 */
/* @name maxObservedAtSinceCapture */
SELECT replace(substr(MAX(/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)), 1, 26), ' ', 'T') || 'Z' AS "last_observed_at?::string"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor!
   AND (s.observed_at >= substr(:since!, 1, 19) OR substr(s.observed_at, -6, 1) = '-')
   AND (/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!;
