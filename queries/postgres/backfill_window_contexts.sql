/*
 * AC-21…AC-23b: the backfill of ONE WINDOW of the host's messages, those created in [:lo, :top]
 * (issue 32 item 5: the PostgreSQL backfill's window walk, src/migrations/backfill-windows.ts;
 * next_backfill_window.sql gives the window's edges; docs/migrations.md, "PostgreSQL: windows of
 * created_at", says why). Every rule after the selection is backfill_subagent_contexts.sql's, and
 * its comments say why each is written as it is, and test/backfill-window-statement.test.ts keeps
 * the two texts alike from "parsed" to "ranked" and in the INSERT;
 * test/migrations-backfill-chunked.test.ts compares both walks with the single statement on
 * random stores.
 *
 * What differs from the session chunk:
 * - The selection: a created_at range, read as a bitmap heap scan (the runner turns index and
 *   sequential scans off for this transaction: set_local_bitmap_scans.sql), so the window's
 *   pages are read once each, in the order they lie on disk, however many sessions share them.
 *   The session walk fetched each message through an index, about 2 µs a message against the
 *   single statement's 0.3 µs (BENCHMARKS.md, "Issue 32, the walk's reads").
 * - AC-21b across windows: the windows are walked newest first, so the first window that holds a
 *   qualifying message for a (session, tool call) holds its newest one, and ranks it first there
 *   (equal created_at values are never split between windows); ON CONFLICT DO NOTHING keeps it
 *   when an older window comes to the same key. The same rule keeps a live row, a row an
 *   earlier session walk wrote (a complete winner), and makes a replayed window a no-op (AC-22).
 * - The sessions' locks (issue 34): the sessions of the rows about to be written are locked FOR
 *   KEY SHARE in this statement (the "written" CTE), in key order, all before the first row is
 *   written, and a row is written only for a session locked: one a host deleted first is
 *   skipped (the single statement's orphan rule), one deleted later waits for this window's
 *   COMMIT. Only the sessions that get a row are locked, not every session of the window.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): instant_in_range, prefiltered_metadata_or_empty, recordable_id, subagent_prefilter;
 * and, derived from the column tags of schema/postgres/002_task_session_subagents.sql, the text
 * columns' extraction (text_from_metadata) and lists (text_columns).
 */
/* @returns exec */
/* @name backfillWindowContexts */
WITH candidate AS (
  SELECT m.id, m.task_session_id, m.task_id, m.turn_id, m.created_at, m.updated_at,
         {{prefiltered_metadata_or_empty(m.metadata)}} AS meta
    FROM task_session_messages AS m
   WHERE m.created_at >= :lo!
     AND m.created_at <= :top!
     AND {{subagent_prefilter(m.metadata)}}
  OFFSET 0
), parsed AS (
  SELECT c.id, c.task_session_id, c.task_id, c.created_at, c.updated_at,
         -- AC-21: the message's own column; as on the live path, a turn id that is not
         -- recordable ('' or beyond the indexable length, src/identity.ts) is NULL.
         CASE WHEN {{recordable_id(c.turn_id)}} THEN c.turn_id END AS turn_id,
         c.meta #> '{normalized,kind}' AS kind,
         CASE WHEN jsonb_typeof(c.meta -> 'tool_call_id') = 'string'
              THEN c.meta ->> 'tool_call_id' END AS tool_call_id,                -- a JSON string only (AC-21a)
         -- The text columns (their tags in the DDL): only a JSON string counts, and '' is stored
         -- as NULL (column rules). agent_status is the CHILD's report under
         -- normalized.subagent_task (AC-21) …
         {{text_from_metadata(c.meta)}},
         -- … and tool_status the ACP tool-call status at the TOP level; never conflated.
         CASE WHEN jsonb_typeof(c.meta -> 'status') = 'string'
              THEN NULLIF(c.meta ->> 'status', '') END AS tool_status,
         -- Column rules: is_async is 1 only on a positive report (JSON true).
         CASE WHEN c.meta #> '{normalized,subagent_task,is_async}' = 'true'::jsonb THEN 1 ELSE 0 END AS is_async,
         -- Metrics (AC-23): a JSON number whose value is an integer within int64 is that
         -- integer however it is spelled (100, 1e2, 100.0: JSON has one number type, and the
         -- SQLite backfill and the live path read it the same way); jsonb keeps the exact
         -- decimal, so nothing is rounded, and the inner CASE casts only numbers, so no value
         -- can raise. Strings, fractions, booleans, beyond int64 (1e30) are NULL. AC-7a:
         -- total_tokens and duration_ms of 0 are "not reported" (NULL); AC-9: a negative is
         -- NULL; AC-8: tool_use_count 0 stays 0.
         CASE WHEN jsonb_typeof(c.meta #> '{normalized,subagent_task,total_tokens}') = 'number' THEN
           CASE WHEN (c.meta #> '{normalized,subagent_task,total_tokens}')::numeric BETWEEN 1 AND 9223372036854775807
                 AND (c.meta #> '{normalized,subagent_task,total_tokens}')::numeric = trunc((c.meta #> '{normalized,subagent_task,total_tokens}')::numeric)
                THEN (c.meta #> '{normalized,subagent_task,total_tokens}')::numeric::bigint END END AS total_tokens,
         CASE WHEN jsonb_typeof(c.meta #> '{normalized,subagent_task,tool_use_count}') = 'number' THEN
           CASE WHEN (c.meta #> '{normalized,subagent_task,tool_use_count}')::numeric BETWEEN 0 AND 9223372036854775807
                 AND (c.meta #> '{normalized,subagent_task,tool_use_count}')::numeric = trunc((c.meta #> '{normalized,subagent_task,tool_use_count}')::numeric)
                THEN (c.meta #> '{normalized,subagent_task,tool_use_count}')::numeric::bigint END END AS tool_use_count,
         CASE WHEN jsonb_typeof(c.meta #> '{normalized,subagent_task,duration_ms}') = 'number' THEN
           CASE WHEN (c.meta #> '{normalized,subagent_task,duration_ms}')::numeric BETWEEN 1 AND 9223372036854775807
                 AND (c.meta #> '{normalized,subagent_task,duration_ms}')::numeric = trunc((c.meta #> '{normalized,subagent_task,duration_ms}')::numeric)
                THEN (c.meta #> '{normalized,subagent_task,duration_ms}')::numeric::bigint END END AS duration_ms
    FROM candidate AS c
  OFFSET 0 -- fence: the ranking below sorts these few small columns, never the documents
), qualifying AS (
  -- AC-21: normalized.kind is the JSON string 'subagent_task'. AC-21a: session, task and
  -- tool_call_id (a JSON string) all recordable, else skipped: the live path's AC-2 rule,
  -- one definition (src/identity.ts), which also keeps every id within what the key's
  -- btree entry can hold, so no message can abort this INSERT (54000).
  SELECT p.*
    FROM parsed AS p
   WHERE p.kind = '"subagent_task"'::jsonb
     AND {{recordable_id(p.task_session_id)}}
     AND {{recordable_id(p.task_id)}}
     AND {{recordable_id(p.tool_call_id)}}
     AND {{instant_in_range(p.created_at)}}   -- as SQLite reads one: finite, years 1–9999
), ranked AS (
  -- AC-21b: one row per (session, tool_call_id), from the message with the newest
  -- created_at, then the greatest id in byte order (COLLATE "C", as SQLite compares).
  SELECT q.*,
         row_number() OVER (PARTITION BY q.task_session_id, q.tool_call_id
                            ORDER BY q.created_at DESC, q.id COLLATE "C" DESC) AS rn
    FROM qualifying AS q
), written AS MATERIALIZED (
  -- Issue 34: each row's session locked FOR KEY SHARE, in key order (the sort), by a probe of the
  -- primary key; a session gone before its lock is not returned, so its rows are skipped as the
  -- single statement's orphan check skips them. (A join of the rows with a CTE of locked sessions
  -- measured 2.7× slower on dense-1m: the planner estimated one row each side, and nested them.)
  SELECT r.*
    FROM (SELECT * FROM ranked WHERE rn = 1 ORDER BY task_session_id) AS r
   CROSS JOIN LATERAL (SELECT s.id FROM task_sessions AS s WHERE s.id = r.task_session_id FOR KEY SHARE OF s) AS l
)
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at,
  {{text_columns()}}
)
SELECT
  gen_random_uuid()::text,                        -- a random (version 4) UUID, like the live path's ids
  r.task_session_id, r.task_id, r.turn_id,
  'unknown',                                      -- AC-31: messages carry no execution identity
  r.tool_call_id, r.tool_status, r.is_async,
  r.total_tokens, r.tool_use_count, r.duration_ms,
  'backfill',                                     -- AC-21, AC-25: provenance
  r.created_at,                                   -- AC-21: observed_at is the message's created_at
  -- AC-23a: settled_at from updated_at (created_at when NULL: old rows) only when the
  -- TOP-LEVEL status is one of AC-11's six terminal values; never from agent_status. An
  -- updated_at that is no instant the package can write and read back ('infinity', a year past
  -- 9999, a date BC) reads as NULL, as SQLite's utc9 reads it (but year 0000, instant_in_range.sql): written as it was, it made the row
  -- unreadable (listBySession failed for its whole session) or a day AD (a review, 2026-12).
  CASE WHEN r.tool_status IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
       THEN COALESCE(CASE WHEN {{instant_in_range(r.updated_at)}} THEN r.updated_at END, r.created_at) END,
  COALESCE(CASE WHEN {{instant_in_range(r.updated_at)}} THEN r.updated_at END, r.created_at),
  {{text_columns(r)}}
  FROM written AS r
 -- Every lock is taken before the first row is written: this filter needs all of "written" and is
 -- evaluated once, first. Locks taken row by row while rows were written held early sessions
 -- through the whole insert, and a host deleting a task's sessions in another order deadlocked
 -- with the window (an adversarial review: 40P01 for the host, and for the backfill); now the
 -- locks are taken in one short pass, as the session walk's lock statement takes them.
 WHERE (SELECT count(*) FROM written) >= 0
-- AC-22: a row already on the key (a live row, a pre-amendment row, an earlier backfill)
-- is left untouched, so a live write always wins and a replay is a no-op.
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING;
