/*
 * AC-28 SHORTFALL, the alarm (AC-29): distinct (task_session_id, tool_call_id) keys of
 * subagent messages created at or after capture_since that have no task_session_subagents
 * row observed at or after it. A directed set difference, never netted against the excess
 * (revision 3), so no banked excess can absorb a missed write: the first miss counts.
 *
 * The spec's `expected EXCEPT observed`, written as `DISTINCT expected WHERE key NOT IN
 * observed`: the same set, because no key on either side can be NULL (the identity filter
 * below, NOT NULL columns). SQLite without ANALYZE statistics plans the EXCEPT form as a
 * scan of every task_session_subagents row; this form searches idx_messages_created_at and
 * idx_subagents_observed_at and evaluates the observed set once (test/health-plans.test.ts).
 *
 * `msg` is AC-23b's normalization (revision 4): NULL, '', 'null' and any text that is not
 * valid JSON read as '{}', so one malformed row is a non-match, never an error that would
 * silently disable the check.
 *
 * Time (AC-24e, docs/timestamps.md): :since is the key in "utc9" form and each column value
 * is brought to utc9, so the comparison is exact (nanoseconds; no julianday, no raw text)
 * for every stored form, trimmed fractions and any offset included. :sinceFloor (the key's
 * UTC date minus one day) bounds the bare column so its index serves the window; it never
 * excludes a row the exact comparison admits. The exact comparison is written last so it
 * runs only on rows the cheaper terms kept. tool_call_id is compared as text, as
 * PostgreSQL's #>> yields it.
 * Cost: a message whose text does not contain '_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is mapped to '{}' before any JSON is validated or parsed: only the
 * window's few subagent messages reach the parser.
 *
 * Inlined fragments, each copy marked with its name and pinned to one canonical text by
 * test/sql-fragment-pin.test.ts: utc9, metadata_or_empty. Inlined rather than shared
 * because SQLite's SQL cannot define a function, and a view could serve only the package's
 * own table, never the host's messages (DESIGN §3): one pin covers every copy (reasons in
 * that test's header).
 */
/* @name countShortfallSinceCapture */
WITH msg AS (
  SELECT m.task_session_id, m.task_id, m.created_at,
         /* metadata_or_empty(m.metadata) */
         (CASE WHEN m.metadata IS NULL OR m.metadata = '' OR m.metadata = 'null'
                 OR instr(m.metadata, '_task') = 0 OR NOT json_valid(m.metadata)
               THEN '{}' ELSE m.metadata END) AS meta
    FROM task_session_messages AS m
)
SELECT COUNT(*) AS "shortfall!" FROM (
  SELECT DISTINCT msg.task_session_id, CAST(json_extract(msg.meta, '$.tool_call_id') AS TEXT) AS tool_call_id
    FROM msg
   WHERE msg.created_at >= :sinceFloor!
     AND json_extract(msg.meta, '$.normalized.kind') = 'subagent_task'
     -- AC-2 / AC-21a: the shortfall side excludes exactly what the writer and the backfill
     -- skip, so a correctly skipped frame is not a permanent false alarm. The excess side
     -- deliberately does NOT carry this filter (AC-28, revision 4).
     AND COALESCE(msg.task_session_id, '') <> ''
     AND COALESCE(msg.task_id, '') <> ''
     AND COALESCE(json_extract(msg.meta, '$.tool_call_id'), '') <> ''
     AND (/* utc9(msg.created_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(msg.created_at, 1, 19) || ltrim(substr(msg.created_at, 20), '.0123456789')) || '.' || substr(substr(msg.created_at, 21, max(length(msg.created_at) - 20 - length(ltrim(substr(msg.created_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!
     AND (msg.task_session_id, CAST(json_extract(msg.meta, '$.tool_call_id') AS TEXT)) NOT IN (
       SELECT s.task_session_id, s.tool_call_id
         FROM task_session_subagents AS s
        WHERE s.observed_at >= :sinceFloor!
          AND (/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!)
) AS shortfall;
