/*
 * AC-21…AC-23b: the backfill of ONE CHUNK of the host's sessions, an INSERT … SELECT with no
 * LIMIT over every message of the sessions in the sessionIds parameter (issues 32 and 34: the one-time
 * backfill is a series of these, src/migrations/backfill-step.ts; docs/migrations.md says
 * what changed from AC-23a's single statement and why). No row ever reaches JavaScript. Every
 * derived value follows the live path's column rules, so the same subagent reads alike
 * whichever path wrote it.
 *
 * The chunk: the sessions the runner locked FOR KEY SHARE in this transaction
 * (lock_backfill_sessions.sql), as the sessionIds parameter. AC-21b's winner is chosen per
 * (task_session_id, tool_call_id), so every message that competes for a row is in the same
 * chunk, and the union of the chunks' rows is exactly what one statement over all sessions
 * writes (test/migrations-backfill-chunked.test.ts compares the two on random stores). The
 * locks are why a host deleting a session cannot fail this INSERT's foreign key (issue 34):
 * a session deleted before the lock is not in the sessionIds parameter, and one not yet deleted waits for
 * this transaction. The set alone selects the messages (an index scan per session on the
 * host's (task_session_id, created_at) index), never a key range: the messages' column may
 * sort under another collation than task_sessions.id, whose order the walk follows, and a
 * range in that order would drop sessions (a review found 5 of 593 rows lost under ICU 'en'
 * beside a COLLATE "C" id column).
 *
 * Robustness: nothing in a message may abort this statement, or the backfill would fail
 * on every boot and never activate (AC-24a retries forever). So: metadata that is NULL, '',
 * 'null', not valid JSON, or valid JSON of the wrong shape is read as '{}' through
 * the valid_jsonb fragment (AC-23b: pg_input_is_valid, built in on 16+) and such a
 * message simply does not qualify; every field is read only when its JSON type is right
 * (jsonb's -> and #> return NULL, never an error, on a scalar or an array); a message whose
 * session row is gone is skipped rather than failing the insert's foreign key.
 *
 * Plan: a cheap text prefilter, strpos(metadata, 'subagent_task'), runs before any JSON
 * parsing. It is a superset of the JSON predicate for what hosts write: a qualifying
 * document holds the JSON string "subagent_task" (normalized.kind), whose characters appear
 * verbatim in the text unless a writer escaped plain ASCII letters or '_' as \uXXXX —
 * which Go's encoding/json (the host's writer) never does (it escapes only control
 * characters, <, >, &, U+2028/9 and invalid UTF-8). OFFSET 0 fences the prefiltered
 * subquery: without it the planner pulls it up and re-evaluates the ::jsonb cast once per
 * reference to meta below, parsing each document a dozen times (measured 11x slower on a
 * 200k-message store). A second fence after the field extraction keeps the documents out of
 * the ranking's sort (which otherwise spilled to disk there).
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): instant_in_range, prefiltered_metadata_or_empty, recordable_id, subagent_prefilter;
 * and, derived from the column tags of schema/postgres/002_task_session_subagents.sql, the text
 * columns' extraction (text_from_metadata) and lists (text_columns).
 */
/* @returns exec */
/* @name backfillSubagentContexts */
WITH candidate AS (
  SELECT m.id, m.task_session_id, m.task_id, m.turn_id, m.created_at, m.updated_at,
         {{prefiltered_metadata_or_empty(m.metadata)}} AS meta
    FROM task_session_messages AS m
   WHERE m.task_session_id = ANY(:sessionIds!::text[])
     AND {{subagent_prefilter(m.metadata)}}
     -- A message whose session row is gone (a host that ran with foreign keys off) is
     -- skipped. Checked here, inside the fence, where the planner sees the scan's real size
     -- and joins task_sessions by hash or index: checked outside it, against the fenced
     -- subquery's tiny row estimate, it chose a nested loop over every session × every
     -- candidate (51 s on the dense 1M-message store).
     AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = m.task_session_id)
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
  FROM ranked AS r
 WHERE r.rn = 1
-- AC-22: a row already on the key (a live row, a pre-amendment row, an earlier backfill)
-- is left untouched, so a live write always wins and a replay is a no-op.
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING;
