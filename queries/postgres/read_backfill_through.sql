/*
 * AC-24 point 1, AC-24f: subagent_context_backfill_through is the created_at of the newest
 * message matching AC-21's SOURCE predicate — never of what one attempt inserted, so a
 * retry whose INSERT is a no-op (AC-22) still publishes the true high-water mark — or ''
 * when no message matches (a sentinel, never an instant).
 * AC-24d: the runner evaluates this BEFORE backfill_subagent_contexts in the same
 * transaction. Under READ COMMITTED each statement takes its own snapshot, so this one is
 * the earlier: a message committed in between is inserted but not counted, which can only
 * under-claim (the key names an instant the backfill definitely covered).
 * The predicate below must stay the one backfill_subagent_contexts.sql applies before its
 * ranking (same prefilter, JSON normalization, identity filter, existing session);
 * test/migrations-backfill-selection.test.ts checks the two agree.
 * Written as RFC3339 with nine fraction digits and Z (DESIGN §4): created_at is a
 * microsecond TIMESTAMP holding UTC, so the last three digits are zeros; to_char of a
 * timestamp without time zone does not depend on the session TimeZone.
 *
 * In windows (issue 32 item 3): this statement reads the messages created before :before
 * (exclusive; 'infinity' at first), down to the :limit-th newest of them (the edge) and every
 * message sharing the edge's created_at, so no tie is split between two windows. It returns
 * the newest qualifying message in that window, or '' with the edge, from which the runner
 * reads the next window below it, each in a transaction of its own and sized to the role's
 * time limit (src/migrations/backfill-mark.ts); "edge" NULL: no message is left below. One
 * statement over the whole table instead, on a store whose qualifying messages are old or
 * absent, ran past a role's statement_timeout on every boot (an adversarial review: 0.3–0.5 s
 * over 600k newer messages). Each window's reads stay before any chunk's INSERT, so the mark
 * still only under-claims. The edge comes back as the column's own text and goes back as
 * :before, typed by the column, so it is exact to the microsecond (for a timestamptz column
 * too, whatever the session's TimeZone); the mark's own text assumes the host's TIMESTAMP
 * holding UTC, as above.
 * Cost: the edge walks the host's created_at index backwards over :limit entries; the newest
 * qualifying message is the first in created_at order from :before, so the same walk stops at
 * it. Each message's document is validated and parsed once (the LATERAL), and only when its
 * text can qualify. Without :before and with an unbounded :limit it is the single read over
 * the whole table (the tests' and benchmarks' reference).
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): instant_in_range, prefiltered_metadata_or_empty, recordable_id, subagent_prefilter.
 */

/* @returns one */
/* @name readBackfillThrough */
WITH edge AS (
  SELECT m.created_at
    FROM task_session_messages AS m
   WHERE m.created_at < :before!
   ORDER BY m.created_at DESC
  OFFSET :limit!::bigint - 1
   LIMIT 1
)
SELECT COALESCE((
  SELECT to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') || '000Z'
    FROM task_session_messages AS m
   CROSS JOIN LATERAL (
     SELECT e.meta, e.meta ->> 'tool_call_id' AS tool_call_id
       FROM (SELECT {{prefiltered_metadata_or_empty(m.metadata)}} AS meta
              OFFSET 0) AS e
   ) AS d
   WHERE m.created_at < :before!
     AND m.created_at >= COALESCE((SELECT edge.created_at FROM edge), '-infinity')
     AND {{subagent_prefilter(m.metadata)}}
     AND d.meta #> '{normalized,kind}' = '"subagent_task"'::jsonb
     AND {{recordable_id(m.task_session_id)}}
     AND {{recordable_id(m.task_id)}}
     AND jsonb_typeof(d.meta -> 'tool_call_id') = 'string'
     AND {{recordable_id(d.tool_call_id)}}
     AND {{instant_in_range(m.created_at)}}   -- the backfill's own test
     -- A message whose session row is gone (a host that ran with foreign keys off) is skipped.
     AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = m.task_session_id)
   ORDER BY m.created_at DESC
   LIMIT 1
), '') AS "backfill_through!",
       (SELECT edge.created_at::text FROM edge) AS "edge?";
