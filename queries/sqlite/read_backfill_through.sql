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
 * existing session); test/migrations-backfill-selection.test.ts checks the two agree.
 * Written as RFC3339 with nine fraction digits and Z (DESIGN §4): the utc9 form of
 * docs/timestamps.md with 'T' and 'Z'. MAX over utc9 is instant order (fixed width, UTC).
 *
 * Cost: this must not be a second full scan next to the backfill's own (it doubled the
 * one-time backfill on large stores). The stored created_at text sorts like the instant
 * except across different UTC offsets, which shift a row's local date by less than a day.
 * So: `l` walks the host's created_at index backwards to the qualifying message whose STORED
 * text sorts last, reading only the newest messages; no message whose instant is later than
 * that one's can have a stored date earlier than the day before its UTC date; and the exact
 * MAX over utc9 is taken on that index range alone. Without an index on created_at the
 * statement is still correct (a scan).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): prefiltered_metadata_or_empty, recordable_id, subagent_prefilter, utc9.
 */
/* @returns one */
/* @name readBackfillThrough */
WITH candidate AS (
  -- The text prefilter before any JSON parsing, the same as backfill_subagent_contexts.sql's
  -- (see there why GLOB '*_task*' is a superset of the JSON predicate, and cheap).
  SELECT n.created_at, n.task_session_id, n.task_id,
         {{prefiltered_metadata_or_empty(n.metadata)}} AS meta
    FROM task_session_messages AS n
   WHERE {{subagent_prefilter(n.metadata)}}
), candidate_id AS (
  SELECT c.*, json_extract(c.meta, '$.tool_call_id') AS tool_call_id FROM candidate AS c
), qualifying AS (
  SELECT c.created_at,
         {{utc9(c.created_at)}} AS created_utc9
    FROM candidate_id AS c
   WHERE json_type(c.meta, '$.normalized.kind') = 'text'
     AND json_extract(c.meta, '$.normalized.kind') = 'subagent_task'
     AND {{recordable_id(c.task_session_id)}}
     AND {{recordable_id(c.task_id)}}
     AND json_type(c.meta, '$.tool_call_id') = 'text'
     AND {{recordable_id(c.tool_call_id)}}
     -- The session by its bytes, as the chunks test it (backfill_subagent_contexts.sql says why).
     AND EXISTS (SELECT 1 FROM task_sessions AS s
                  WHERE s.id = c.task_session_id AND s.id = c.task_session_id COLLATE BINARY)
)
SELECT COALESCE(replace(max(q.created_utc9), ' ', 'T') || 'Z', '') AS "backfill_through!::string"
  FROM qualifying AS q
 WHERE q.created_utc9 IS NOT NULL
   -- The raw-latest qualifying message's UTC date minus one day bounds every later instant.
   AND q.created_at >= (SELECT date(l.created_utc9, '-1 day') FROM qualifying AS l
                         WHERE l.created_utc9 IS NOT NULL ORDER BY l.created_at DESC LIMIT 1);
