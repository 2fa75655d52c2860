/*
 * instant_in_range(x): whether a host created_at (or updated_at) is an instant the package can
 * write and read back: finite and in the years 1 to 9999. SQLite's utc9 reads the same years and
 * year 0000 besides (its date functions stop at 9999, and a text that is not a date is NULL;
 * PostgreSQL's 1 BC, the only difference: a second review, 2026-12), and the package writes an instant as
 * 'YYYY-MM-DD…': 'infinity' gave a row whose observed_at the reader could not read (listBySession
 * failed for its whole session), a year past 9999 a key no reader parses, a date before Christ
 * one that reads as the same day AD (a review, 2026-12-07). Such a message is skipped as one
 * whose created_at does not parse, by the backfill and its mark alike. The bounds are typed as
 * the column (a timestamptz column compares them in the session's TimeZone: at most a day's
 * difference, 9,998 years from any real message). NULL: not in range.
 */
(isfinite(x) AND x >= '0001-01-01 00:00:00' AND x < '10000-01-01 00:00:00')
