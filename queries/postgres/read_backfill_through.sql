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
 * Cost: MAX(created_at) over the qualifying messages is the first qualifying message in
 * created_at order from the newest, so the host's created_at index is walked backwards and
 * the walk stops at that message: it reads the newest messages only, never the whole table
 * (the backfill's own INSERT is the one full scan). Each message's document is validated
 * and parsed once (the LATERAL), and only when its text can qualify.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): prefiltered_metadata_or_empty, recordable_id, subagent_prefilter.
 */

/* @returns one */
/* @name readBackfillThrough */
SELECT COALESCE((
  SELECT to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US') || '000Z'
    FROM task_session_messages AS m
   CROSS JOIN LATERAL (
     SELECT e.meta, e.meta ->> 'tool_call_id' AS tool_call_id
       FROM (SELECT {{prefiltered_metadata_or_empty(m.metadata)}} AS meta
              OFFSET 0) AS e
   ) AS d
   WHERE {{subagent_prefilter(m.metadata)}}
     AND d.meta #> '{normalized,kind}' = '"subagent_task"'::jsonb
     AND {{recordable_id(m.task_session_id)}}
     AND {{recordable_id(m.task_id)}}
     AND jsonb_typeof(d.meta -> 'tool_call_id') = 'string'
     AND {{recordable_id(d.tool_call_id)}}
     AND m.created_at IS NOT NULL
     -- A message whose session row is gone (a host that ran with foreign keys off) is skipped.
     AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = m.task_session_id)
   ORDER BY m.created_at DESC
   LIMIT 1
), '') AS "backfill_through!";
