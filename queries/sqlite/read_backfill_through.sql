/*
 * AC-24 point 1, AC-24f: subagent_context_backfill_through is the created_at of the newest
 * message matching AC-21's SOURCE predicate — never of what one attempt inserted, so a
 * retry whose INSERT is a no-op (AC-22) still publishes the true high-water mark — or ''
 * when no message matches (a sentinel, never an instant).
 * AC-24d: the runner evaluates this BEFORE backfill_subagent_contexts, inside the same
 * BEGIN IMMEDIATE transaction (one snapshot, the write lock held), so it can only name an
 * instant the INSERT covered.
 * The predicate below must stay the one backfill_subagent_contexts.sql applies before its
 * ranking (same prefilter, JSON normalization, identity filter, parseable created_at,
 * existing session); test/migrations-backfill.test.ts checks the two agree.
 * Written as RFC3339 with nine fraction digits and Z (DESIGN §4): the utc9 form of
 * docs/timestamps.md with 'T' and 'Z'. MAX over utc9 is instant order (fixed width, UTC).
 */
/* @name readBackfillThrough */
WITH candidate AS (
  -- Storage order (NOT INDEXED) and a text prefilter before any JSON parsing: see
  -- backfill_subagent_contexts.sql for why instr(...,'subagent_task') is a superset.
  SELECT m.task_session_id, m.task_id, m.created_at,
         CASE WHEN json_valid(m.metadata) THEN m.metadata ELSE '{}' END AS meta
    FROM task_session_messages AS m NOT INDEXED
   WHERE instr(m.metadata, 'subagent_task') > 0
), qualifying AS (
  SELECT strftime('%Y-%m-%d %H:%M:%S', substr(c.created_at, 1, 19) || ltrim(substr(c.created_at, 20), '.0123456789')) || '.' || substr(substr(c.created_at, 21, max(length(c.created_at) - 20 - length(ltrim(substr(c.created_at, 20), '.0123456789')), 0)) || '000000000', 1, 9) AS created_utc9
    FROM candidate AS c
   WHERE json_type(c.meta, '$.normalized.kind') = 'text'
     AND json_extract(c.meta, '$.normalized.kind') = 'subagent_task'
     AND c.task_session_id <> ''
     AND c.task_id <> ''
     AND json_type(c.meta, '$.tool_call_id') = 'text'
     AND json_extract(c.meta, '$.tool_call_id') <> ''
     AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = c.task_session_id)
)
SELECT COALESCE(replace(max(q.created_utc9), ' ', 'T') || 'Z', '') AS "backfill_through!"
  FROM qualifying AS q
 WHERE q.created_utc9 IS NOT NULL;
