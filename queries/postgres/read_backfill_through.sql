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
 * test/migrations-backfill.test.ts checks the two agree.
 * Written as RFC3339 with nine fraction digits and Z (DESIGN §4): created_at is a
 * microsecond TIMESTAMP holding UTC, so the last three digits are zeros; to_char of a
 * timestamp without time zone does not depend on the session TimeZone.
 */
/* @name readBackfillThrough */
WITH candidate AS (
  -- A text prefilter before any JSON parsing, fenced by OFFSET 0 so each metadata
  -- document is parsed once: see backfill_subagent_contexts.sql for why it is a superset.
  SELECT m.task_session_id, m.task_id, m.created_at,
         CASE WHEN subagent_context_is_json(m.metadata) THEN m.metadata::jsonb ELSE '{}'::jsonb END AS meta
    FROM task_session_messages AS m
   WHERE strpos(m.metadata, 'subagent_task') > 0
  OFFSET 0
)
SELECT COALESCE(to_char(max(c.created_at), 'YYYY-MM-DD"T"HH24:MI:SS.US') || '000Z', '') AS "backfill_through!"
  FROM candidate AS c
 WHERE c.meta #> '{normalized,kind}' = '"subagent_task"'::jsonb
   AND c.task_session_id <> ''
   AND c.task_id <> ''
   AND jsonb_typeof(c.meta -> 'tool_call_id') = 'string'
   AND c.meta ->> 'tool_call_id' <> ''
   AND c.created_at IS NOT NULL
   AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = c.task_session_id);
