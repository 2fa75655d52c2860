/*
 * AC-29 attribution, scoped (revision 4): the newest observed_at among rows observed at or
 * after capture_since, with the shortfall's own comparison and bare-column terms. Unscoped, backfilled or legacy
 * rows would answer and read as a healthy writer; scoped, NULL means "the writer has
 * produced nothing since activation", which the health verdict never reports as healthy.
 * A backfilled row inside the scope (its message dated after capture_since) counts, as the
 * spec's query counts it: a live frame of the same subagent with no execution id lands on that
 * row ('unknown', AC-31), whose source and observed_at are write-once, so leaving backfilled
 * rows out read a working writer as "nothing since activation" (tried and reverted, 0.3.0).
 * The utc9 form is fixed width, so its MAX is the latest instant whatever form each row
 * was stored in; it comes back as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (docs/timestamps.md).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, utc9.
 */
/* @returns one */
/* @name maxObservedAtSinceCapture */
SELECT replace(substr(MAX({{utc9(s.observed_at)}}), 1, 26), ' ', 'T') || 'Z' AS "last_observed_at?::string"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor!
   AND {{before_since_text(s.observed_at)}}
   AND {{utc9(s.observed_at)}} >= :since!;
