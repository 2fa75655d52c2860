/*
 * AC-21…AC-23b: the backfill of ONE CHUNK of the host's sessions, an INSERT … SELECT with no
 * LIMIT over every candidate message whose session key is in (after, upTo] (issues 32 and 34:
 * the one-time backfill is a series of these, so a host writer waits for one chunk, never the
 * whole backfill; src/migrations/backfill-step.ts; docs/migrations.md says what changed from
 * AC-23a's single statement and why). Its rows go to the migrating connection's temp rows
 * table (schema/backfill/sqlite/003_backfill_rows.sql): writing only the temp schema, the
 * statement runs without the host database's write lock, ahead of the chunk's transaction,
 * which then inserts them (keep_backfill_rows.sql). The candidates are the messages
 * phase 1 staged (stage_backfill_candidates.sql, src/migrations/backfill-stage.ts): every
 * message that can qualify, found by reading the host's table in storage order; each is
 * judged again here, as it is now, or, when nothing can have changed since phase 1 staged it
 * (:stagedAt, src/sqlite/stage-freshness.ts), ranked from what phase 1 staged, which is then
 * what it is now. No row ever reaches JavaScript.
 * Every derived value follows the live path's column rules, so the same subagent reads alike
 * whichever path wrote it.
 *
 * The chunk: AC-21b's winner is chosen per (task_session_id, tool_call_id), so every message
 * that competes for a row is in the same chunk, and the union of the chunks' rows is exactly
 * what one statement over the whole key range writes (test/migrations-backfill-chunked.test.ts
 * compares the two on random stores). The chunk's transaction reads its sessions
 * (next_backfill_sessions.sql) again and keeps the rows computed ahead only if they are the
 * same sessions and the schema version is unchanged; else it computes them again under the lock.
 *
 * Robustness: nothing in a message may abort this statement, or the backfill would fail
 * on every boot and never activate (AC-24a retries forever). So: metadata that is NULL, '',
 * 'null', not valid JSON, or valid JSON of the wrong shape is read as '{}' (AC-23b, DESIGN
 * §2) and such a message simply does not qualify; every field is read only when its JSON
 * type is right; a created_at that does not parse is skipped; a message whose session row
 * is gone (possible only where the host ran with foreign keys off) is skipped rather than
 * failing the insert's foreign key.
 *
 * Plan: the chunk's candidates are a range of the staging table's key, each message read by
 * its id (a full scan per chunk would make the backfill quadratic, and reading a chunk's
 * sessions through the host's (task_session_id, created_at) index cost a row lookup per
 * message of the store, where this costs one per candidate). The cheap text prefilter
 * metadata GLOB '*_task*' runs before any JSON parsing. It is a superset of the JSON
 * predicate for what hosts write: a qualifying document holds the JSON string
 * "subagent_task" (normalized.kind), whose characters appear verbatim in the text unless a
 * writer escaped plain ASCII letters or '_' as \uXXXX — which Go's encoding/json (the
 * host's writer) never does (it escapes only control characters, <, >, &, U+2028/9 and
 * invalid UTF-8) — and '_task' is part of it. The needle starts with '_' on purpose:
 * GLOB's leading '*' scans for the needle's first byte and compares the rest only where it
 * matches, and '_' is rare in message text ('subagent_task', an 's' at every fourth word,
 * made instr() 1.5x slower). GLOB rather than instr(): the same rows, half the CPU
 * (subagent_prefilter.sql; BENCHMARKS.md).
 *
 * Two passes, so memory does not grow with what a document holds (issue 20): pass 1
 * (candidate → keyed → qualifying → winner) carries only the ids, the kind and the instant
 * into the ranking; pass 2 (`parsed`) fetches each winner again by rowid and extracts the
 * fields. The single-pass form carried every extracted field through the window's sorter
 * and buffer: one message with a 50 MB description peaked at 880 MB there, 520 MB now
 * (BENCHMARKS.md). The second parse costs nothing measurable: the documents that reach it
 * are the few qualifying ones, and pass 1 no longer validates them once per JSON call.
 * rowid: the host's table is an ordinary rowid table (schema/host/sqlite).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): prefiltered_valid_json, recordable_id, subagent_prefilter, utc9;
 * and, derived from the column tags of schema/sqlite/002_task_session_subagents.sql, the text
 * columns' extraction (text_from_metadata) and lists (text_columns).
 */
/* @returns exec */
/* @name backfillSubagentContexts */
WITH candidate AS (
  -- Pass 1: a few short columns per candidate; the wide fields (a description may be
  -- 50 MB) are extracted in pass 2, for the winners alone.
  -- Metadata that is not valid JSON cannot qualify (it reads as '{}', AC-23b), so it is
  -- dropped here, once per message, rather than normalized inside every JSON call below:
  -- SQLite repeats a CTE column's expression wherever it is used (no common
  -- subexpressions), which made json_valid run ~35 times per candidate.
  -- The chunk's candidates come from the staging table phase 1 filled (a range of its key),
  -- each message then read by id (its primary key index): CROSS JOIN keeps the staging table
  -- the outer loop. The session restated: a message moved to another session meanwhile is
  -- judged where it now is, in that session's chunk, if phase 1 staged it there.
  -- Only when the staged columns may be stale (`keyed` below): otherwise the first term is
  -- false, a constant SQLite tests once, before reading anything.
  SELECT m.rowid AS rid, m.id, m.task_session_id, m.task_id, m.created_at, m.metadata AS meta
    FROM subagent_context_backfill_stage AS s
         CROSS JOIN task_session_messages AS m ON m.id = s.id
   WHERE (SELECT d.data_version FROM pragma_data_version AS d) IS NOT :stagedAt
     AND s.task_session_id > :after! AND s.task_session_id <= :upTo!
     AND m.task_session_id = s.task_session_id
     AND {{subagent_prefilter(m.metadata)}}
     AND {{prefiltered_valid_json(m.metadata)}}
), keyed AS MATERIALIZED (
  -- MATERIALIZED: each candidate's JSON read once. Flattened, SQLite re-ran the tool_call_id
  -- expression (two JSON calls) at each of its uses below (three recordable-id terms, the
  -- window's partition): dense-1m 3.6 s → 2.9 s (BENCHMARKS.md). It holds the short columns
  -- only, a few MB per 50,000 subagent messages, never a document.
  -- Each candidate as it reads now …
  SELECT c.rid, c.id, c.task_session_id, c.task_id,
         json_type(c.meta, '$.normalized.kind') AS kind_type,
         json_extract(c.meta, '$.normalized.kind') AS kind,
         CASE WHEN json_type(c.meta, '$.tool_call_id') = 'text'
              THEN json_extract(c.meta, '$.tool_call_id') END AS tool_call_id,    -- a JSON string only (AC-21a)
         {{utc9(c.created_at)}} AS created_utc9
    FROM candidate AS c
  UNION ALL
  -- … or as phase 1 staged it, when nothing can have changed since. The runner passes
  -- :stagedAt, the data_version the staged columns hold for, only when this run staged every
  -- candidate and nothing has written on this connection but the backfill, or changed the
  -- schema (VACUUM), since (src/sqlite/stage-freshness.ts); it is NULL otherwise. Compared here,
  -- in this statement's own snapshot, so another connection's commit after the runner looked
  -- sends the chunk the first way. Phase 1 kept only candidates whose normalized.kind is the
  -- JSON string 'subagent_task', and their columns with the expressions above over the same
  -- documents (stage_backfill_candidates.sql), so the ranking reads alike either way; this way
  -- no candidate is read again (BENCHMARKS.md).
  SELECT s.rid, s.id, s.task_session_id, s.task_id, 'text', 'subagent_task', s.tool_call_id, s.created_utc9
    FROM subagent_context_backfill_stage AS s
   WHERE (SELECT d.data_version FROM pragma_data_version AS d) = :stagedAt
     AND s.task_session_id > :after! AND s.task_session_id <= :upTo!
), qualifying AS (
  -- AC-21: normalized.kind is the JSON string 'subagent_task'. AC-21a: session, task and
  -- tool_call_id (a JSON string) all recordable, else skipped: the live path's AC-2 rule,
  -- one definition (src/identity.ts), so the two paths and the health check agree.
  SELECT p.*
    FROM keyed AS p
   WHERE p.kind_type = 'text' AND p.kind = 'subagent_task'
     AND {{recordable_id(p.task_session_id)}}
     AND {{recordable_id(p.task_id)}}
     AND {{recordable_id(p.tool_call_id)}}
     AND p.created_utc9 IS NOT NULL
     -- The session by its bytes, as the walk reads keys (next_backfill_sessions.sql): under a
     -- NOCASE id column, a message of session 'a1' where the session is 'A1' sorts after the
     -- walk's last key, so no chunk wrote it while the mark counted it (a review, 2026-12);
     -- read_backfill_through.sql tests the same. The column's own comparison first, so its index
     -- serves the lookup; the BINARY one then filters (the same test where the column is BINARY).
     AND EXISTS (SELECT 1 FROM task_sessions AS s
                  WHERE s.id = p.task_session_id AND s.id = p.task_session_id COLLATE BINARY)
), winner AS (
  -- AC-21b: one row per (session, tool_call_id), from the message with the newest
  -- created_at (as an instant), then the greatest id (byte order). COLLATE BINARY: a host
  -- column declared with a collation (NOCASE) would otherwise partition and order in it.
  SELECT r.rid, r.id, r.created_utc9
    FROM (SELECT q.rid, q.id, q.created_utc9,
                 row_number() OVER (PARTITION BY q.task_session_id COLLATE BINARY, q.tool_call_id
                                    ORDER BY q.created_utc9 DESC, q.id COLLATE BINARY DESC) AS rn
            FROM qualifying AS q) AS r
   WHERE r.rn = 1
), parsed AS MATERIALIZED (
  -- Pass 2, the winners only, each fetched again by rowid (CROSS JOIN keeps `winner` the
  -- outer loop). Its metadata passed json_valid in pass 1, in this same statement's
  -- snapshot (or in phase 1, with nothing changed since), so it is read as it is. MATERIALIZED so each document's fields are extracted once, not again
  -- wherever the INSERT and the literal CTEs refer to them.
  SELECT m.id, m.task_session_id, m.task_id,
         -- AC-21: the message's own column; as on the live path, a turn id that is not
         -- recordable ('' or beyond the indexable length, src/identity.ts) is NULL.
         CASE WHEN {{recordable_id(m.turn_id)}}
              THEN m.turn_id END AS turn_id,
         CASE WHEN json_type(m.metadata, '$.tool_call_id') = 'text'
              THEN json_extract(m.metadata, '$.tool_call_id') END AS tool_call_id,    -- a JSON string only (AC-21a)
         -- The text columns (their tags in the DDL): only a JSON string counts, and '' is stored
         -- as NULL (column rules). agent_status is the CHILD's report under
         -- normalized.subagent_task (AC-21) …
         {{text_from_metadata(m.metadata)}},
         -- … and tool_status the ACP tool-call status at the TOP level; never conflated.
         CASE WHEN json_type(m.metadata, '$.status') = 'text' AND instr(json_extract(m.metadata, '$.status'), char(0)) = 0
              THEN NULLIF(json_extract(m.metadata, '$.status'), '') END AS tool_status,    -- a NUL: not reported, as every text column
         -- Column rules: is_async is 1 only on a positive report (JSON true).
         CASE WHEN json_type(m.metadata, '$.normalized.subagent_task.is_async') = 'true' THEN 1 ELSE 0 END AS is_async,
         -- Metrics (AC-23): a JSON number whose value is an integer within int64 is that
         -- integer however it is spelled (100, 1e2, 100.0: JSON has one number type, and the
         -- PostgreSQL backfill and the live path read it the same way). A plain integer
         -- literal is exact here; SQLite returns one beyond int64 as a REAL, hence the typeof
         -- check. A literal with a fraction or an exponent is a REAL to SQLite, rounded to a
         -- double, so such a column holds the literal's TEXT instead, and its exact value is
         -- read from it below (the `literal_*` CTEs). Strings, fractions, booleans, 1e30 are
         -- NULL. AC-7a: total_tokens and duration_ms of 0 are "not reported" (NULL); AC-9: a
         -- negative is NULL; AC-8: tool_use_count 0 stays 0.
         CASE json_type(m.metadata, '$.normalized.subagent_task.total_tokens')
           WHEN 'integer' THEN CASE WHEN typeof(json_extract(m.metadata, '$.normalized.subagent_task.total_tokens')) = 'integer'
                                     AND json_extract(m.metadata, '$.normalized.subagent_task.total_tokens') > 0
                                    THEN json_extract(m.metadata, '$.normalized.subagent_task.total_tokens') END
           WHEN 'real' THEN m.metadata -> '$.normalized.subagent_task.total_tokens' END AS total_tokens,
         CASE json_type(m.metadata, '$.normalized.subagent_task.tool_use_count')
           WHEN 'integer' THEN CASE WHEN typeof(json_extract(m.metadata, '$.normalized.subagent_task.tool_use_count')) = 'integer'
                                     AND json_extract(m.metadata, '$.normalized.subagent_task.tool_use_count') >= 0
                                    THEN json_extract(m.metadata, '$.normalized.subagent_task.tool_use_count') END
           WHEN 'real' THEN m.metadata -> '$.normalized.subagent_task.tool_use_count' END AS tool_use_count,
         CASE json_type(m.metadata, '$.normalized.subagent_task.duration_ms')
           WHEN 'integer' THEN CASE WHEN typeof(json_extract(m.metadata, '$.normalized.subagent_task.duration_ms')) = 'integer'
                                     AND json_extract(m.metadata, '$.normalized.subagent_task.duration_ms') > 0
                                    THEN json_extract(m.metadata, '$.normalized.subagent_task.duration_ms') END
           WHEN 'real' THEN m.metadata -> '$.normalized.subagent_task.duration_ms' END AS duration_ms,
         -- Host timestamps in any Go-driver form, brought to utc9 (docs/timestamps.md): the
         -- instant, never the raw text, orders and is written. NULL when unparseable.
         w.created_utc9,
         {{utc9(m.updated_at)}} AS updated_utc9
    FROM winner AS w CROSS JOIN task_session_messages AS m ON m.rowid = w.rid
   -- The ranked message itself, rowid and id together: a staged rowid names it only while
   -- nothing changed. The unary + keeps the plan a rowid lookup: without it SQLite chose the
   -- id index for this join, and the statement ran 2-3% slower on dense-1m.
   WHERE +m.id = w.id
), literal_metric AS (
  -- A metric written with a fraction or an exponent, one row per (message, metric): rare
  -- (Go's encoder writes integers plainly), so these CTEs are usually empty. The literal is
  -- RFC 8259's -?digits[.digits][(e|E)[+-]digits] (json_valid admitted the document).
  SELECT p.id, 'total_tokens' AS metric, p.total_tokens AS literal FROM parsed AS p WHERE typeof(p.total_tokens) = 'text'
  UNION ALL
  SELECT p.id, 'tool_use_count', p.tool_use_count FROM parsed AS p WHERE typeof(p.tool_use_count) = 'text'
  UNION ALL
  SELECT p.id, 'duration_ms', p.duration_ms FROM parsed AS p WHERE typeof(p.duration_ms) = 'text'
), literal_parts AS (
  -- value = digits × 10^(exponent − fraction_digits), digits without sign, point or leading
  -- zeros. CAST saturates an absurd exponent at the int64 bounds, which only fails the
  -- 19-digit test below.
  SELECT l.id, l.metric,
         substr(l.literal, 1, 1) = '-' AS negative,
         ltrim(replace(replace(substr(l.literal, 1, l.e_at - 1), '-', ''), '.', ''), '0') AS digits,
         CASE WHEN instr(l.literal, '.') > 0 THEN l.e_at - 1 - instr(l.literal, '.') ELSE 0 END AS fraction_digits,
         CAST(substr(l.literal, l.e_at + 1) AS INTEGER) AS exponent
    FROM (SELECT x.*, instr(replace(x.literal, 'E', 'e') || 'e', 'e') AS e_at FROM literal_metric AS x) AS l
), literal_value AS MATERIALIZED (
  -- The exact value when it is a non-negative integer within int64 (compared as 19-digit
  -- text: no double ever rounds it), else NULL. Zero in any form (-0.0, 0e5) is 0.
  SELECT v.id, v.metric,
         CASE WHEN v.significant = '' THEN 0
              WHEN v.negative OR v.shift < 0 OR length(v.significant) + v.shift > 19 THEN NULL
              WHEN length(v.significant) + v.shift = 19
                   AND v.significant || substr('000000000000000000', 1, v.shift) > '9223372036854775807' THEN NULL
              ELSE CAST(v.significant || substr('000000000000000000', 1, v.shift) AS INTEGER) END AS value
    FROM (SELECT p.id, p.metric, p.negative, rtrim(p.digits, '0') AS significant,
                 p.exponent - p.fraction_digits + length(p.digits) - length(rtrim(p.digits, '0')) AS shift
            FROM literal_parts AS p) AS v
)
INSERT INTO temp.subagent_context_backfill_rows (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at,
  {{text_columns()}},
  source_message_id
)
SELECT
  -- A random (version 4) UUID, like the live path's ids; random() & 3 picks the variant
  -- nibble without abs(), which raises on the one int64 it cannot negate.
  lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)
    || '-' || substr('89ab', 1 + (random() & 3), 1) || substr(lower(hex(randomblob(2))), 2)
    || '-' || lower(hex(randomblob(6))),
  r.task_session_id, r.task_id, r.turn_id,
  'unknown',                                      -- AC-31: messages carry no execution identity
  r.tool_call_id, r.tool_status, r.is_async,
  -- AC-7a (0 is "not reported" for these two) and AC-8 apply to a literal's value as above.
  CASE WHEN typeof(r.total_tokens) <> 'text' THEN r.total_tokens
       ELSE (SELECT nullif(v.value, 0) FROM literal_value AS v WHERE v.id = r.id AND v.metric = 'total_tokens') END,
  CASE WHEN typeof(r.tool_use_count) <> 'text' THEN r.tool_use_count
       ELSE (SELECT v.value FROM literal_value AS v WHERE v.id = r.id AND v.metric = 'tool_use_count') END,
  CASE WHEN typeof(r.duration_ms) <> 'text' THEN r.duration_ms
       ELSE (SELECT nullif(v.value, 0) FROM literal_value AS v WHERE v.id = r.id AND v.metric = 'duration_ms') END,
  'backfill',                                     -- AC-21, AC-25: provenance
  -- Written in the package's fixed-width form 'YYYY-MM-DD HH:MM:SS.ffffff+00:00'.
  substr(r.created_utc9, 1, 26) || '+00:00',      -- AC-21: observed_at is the message's created_at
  -- AC-23a: settled_at from updated_at (created_at when NULL: old rows) only when the
  -- TOP-LEVEL status is one of AC-11's six terminal values; never from agent_status.
  CASE WHEN r.tool_status IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
       THEN substr(COALESCE(r.updated_utc9, r.created_utc9), 1, 26) || '+00:00' END,
  substr(COALESCE(r.updated_utc9, r.created_utc9), 1, 26) || '+00:00',
  {{text_columns(r)}},
  r.id                                            -- source_message_id: the winner, checked under the lock
  -- AC-22 (a row already on the key stays) is keep_backfill_rows.sql's, under the lock.
  FROM parsed AS r;
