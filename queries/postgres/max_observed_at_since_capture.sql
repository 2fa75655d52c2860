/*
 * AC-29 attribution, scoped (revision 4): the newest observed_at among the live writer's rows
 * observed at or after capture_since, with the shortfall's own comparison. Unscoped, backfilled or legacy
 * rows would answer and read as a healthy writer. A backfilled row is left out even inside the
 * scope: it takes its message's created_at, which can fall after capture_since (a message
 * written before the backfill ran, or dated ahead by a skewed clock), and the writer wrote none
 * of it. Scoped, NULL means "the writer has
 * produced nothing since activation", which the health verdict never reports as healthy.
 * Formatted here as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (docs/timestamps.md), not by the driver,
 * which would build a JavaScript Date (milliseconds, process time zone).
 */
/* @returns one */
/* @name maxObservedAtSinceCapture */
SELECT to_char(MAX(s.observed_at), 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "last_observed_at?"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :since!::timestamp
   AND s.source <> 'backfill';
