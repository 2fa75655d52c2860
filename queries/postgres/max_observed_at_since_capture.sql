/*
 * AC-29 attribution, scoped (revision 4): the newest observed_at among rows observed at or
 * after capture_since, with the shortfall's own comparison. Unscoped, backfilled or legacy
 * rows would answer and read as a healthy writer; scoped, NULL means "the writer has
 * produced nothing since activation", which the health verdict never reports as healthy.
 * A backfilled row inside the scope (its message dated after capture_since) counts, as the
 * spec's query counts it: a live frame of the same subagent with no execution id lands on that
 * row ('unknown', AC-31), whose source and observed_at are write-once, so leaving backfilled
 * rows out read a working writer as "nothing since activation" (tried and reverted, 0.3.0).
 * Formatted here as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (docs/timestamps.md), not by the driver,
 * which would build a JavaScript Date (milliseconds, process time zone).
 */
/* @returns one */
/* @name maxObservedAtSinceCapture */
SELECT to_char(MAX(s.observed_at), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "last_observed_at?"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :since!::timestamp;
