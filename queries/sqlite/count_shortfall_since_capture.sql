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
 * AC-23b's normalization (revision 4): NULL, '', 'null' and any text that is not valid JSON
 * read as '{}', so one malformed row is a non-match, never an error that would silently
 * disable the check. NULL, '' and 'null' never pass the text test; the rest is
 * prefiltered_metadata_or_empty, inside each JSON call.
 *
 * Time (AC-24e, docs/timestamps.md): :since is the key in "utc9" form and each column value
 * is brought to utc9, so the comparison is exact (nanoseconds; no julianday, no raw text)
 * for every stored form, trimmed fractions and any offset included. :sinceFloor (the key
 * minus 23:59, to the second: src/sqlite/text-floor.ts) bounds the bare column so its index
 * serves the window; it never excludes a row the exact comparison admits. A second test on
 * the bare column drops the floor's rows on the index entry alone, before the row is read:
 * only a negative offset can put a row's text before its instant, so any other row whose
 * text sorts before the key's whole second is out (docs/timestamps.md, "Index-friendliness",
 * proves both; test/health-window-edge.test.ts seeds every form at the edge). The exact
 * comparison is written last so it runs only on rows the cheaper terms kept. tool_call_id counts only as a JSON string, as
 * on PostgreSQL, in the backfill and on the live path (a number is not an id).
 * Cost: a message whose text does not contain '_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is dropped before any JSON is validated or parsed: only the window's
 * few subagent messages reach the parser, and `expected` (MATERIALIZED) parses each of them
 * once. Not materialized, SQLite repeats a CTE column's expression wherever it is used, and
 * the three recordable-id terms read tool_call_id several times each: each read re-ran the
 * JSON calls (dense-1m, last 1%: 19 ms → 13 ms; BENCHMARKS.md, "the peers").
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, prefiltered_metadata_or_empty, recordable_id, subagent_prefilter, utc9.
 */
/* @returns one */
/* @name countShortfallSinceCapture */
WITH expected AS MATERIALIZED (
  -- The window's subagent candidates, on the index: the bare column bounded below by the
  -- floor, the floor's extra rows dropped on the index entry, then the text test.
  SELECT m.task_session_id, m.task_id, m.created_at,
         json_extract({{prefiltered_metadata_or_empty(m.metadata)}}, '$.normalized.kind') AS kind,
         CASE WHEN json_type({{prefiltered_metadata_or_empty(m.metadata)}}, '$.tool_call_id') = 'text'
              THEN json_extract(m.metadata, '$.tool_call_id') END AS tool_call_id
    FROM task_session_messages AS m
   WHERE m.created_at >= :sinceFloor!
     AND {{before_since_text(m.created_at)}}
     AND {{subagent_prefilter(m.metadata)}}
)
SELECT COUNT(*) AS "shortfall!::bigint" FROM (
  SELECT DISTINCT e.task_session_id, e.tool_call_id
    FROM expected AS e
   WHERE e.kind = 'subagent_task'
     -- AC-2 / AC-21a: the shortfall side excludes exactly what the writer and the backfill
     -- skip — an id that is not recordable (src/identity.ts: not a JSON string, empty, NUL,
     -- not well-formed, or beyond the indexable length) — so a correctly skipped frame is not
     -- a permanent false alarm. The excess side deliberately does NOT carry this filter
     -- (AC-28, revision 4).
     AND {{recordable_id(e.task_session_id)}}
     AND {{recordable_id(e.task_id)}}
     AND {{recordable_id(e.tool_call_id)}}
     -- The exact instant test last, on the few rows left.
     AND {{utc9(e.created_at)}} >= :since!
     AND (e.task_session_id, e.tool_call_id) NOT IN (
       SELECT s.task_session_id, s.tool_call_id
         FROM task_session_subagents AS s
        WHERE s.observed_at >= :sinceFloor!
          AND {{before_since_text(s.observed_at)}}
          AND {{utc9(s.observed_at)}} >= :since!)
) AS shortfall;
