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
 * for every stored form, trimmed fractions and any offset included. :sinceFloor (the key
 * minus 23:59, to the second: src/sqlite/text-floor.ts) bounds the bare column so its index
 * serves the window; it never excludes a row the exact comparison admits. A second test on
 * the bare column drops the floor's rows on the index entry alone, before the row is read:
 * only a negative offset can put a row's text before its instant, so any other row whose
 * text sorts before the key's whole second is out (docs/timestamps.md, "Index-friendliness",
 * proves both; test/sqlite-text-floor.test.ts seeds every form at the edge). The exact
 * comparison is written last so it runs only on rows the cheaper terms kept. tool_call_id counts only as a JSON string, as
 * on PostgreSQL, in the backfill and on the live path (a number is not an id).
 * Cost: a message whose text does not contain '_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is mapped to '{}' before any JSON is validated or parsed: only the
 * window's few subagent messages reach the parser.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, metadata_or_empty, recordable_id, subagent_prefilter, utc9.
 */
/* @name countShortfallSinceCapture */
WITH msg AS (
  SELECT m.task_session_id, m.task_id, m.created_at, m.metadata,
         {{metadata_or_empty(m.metadata)}} AS meta
    FROM task_session_messages AS m
), expected AS (
  SELECT msg.task_session_id, msg.task_id, msg.created_at, msg.metadata,
         json_extract(msg.meta, '$.normalized.kind') AS kind,
         CASE WHEN json_type(msg.meta, '$.tool_call_id') = 'text'
              THEN json_extract(msg.meta, '$.tool_call_id') END AS tool_call_id
    FROM msg
)
SELECT COUNT(*) AS "shortfall!::bigint" FROM (
  SELECT DISTINCT e.task_session_id, e.tool_call_id
    FROM expected AS e
   WHERE e.created_at >= :sinceFloor!
     AND {{before_since_text(e.created_at)}}
     -- The text test once, as a term of its own: a row without it never evaluates msg's CASE
     -- or a JSON call (it would map to '{}' there and fail the kind test anyway).
     AND {{subagent_prefilter(e.metadata)}}
     AND e.kind = 'subagent_task'
     -- AC-2 / AC-21a: the shortfall side excludes exactly what the writer and the backfill
     -- skip — an id that is not recordable (src/identity.ts: not a JSON string, empty, NUL,
     -- not well-formed, or beyond the indexable length) — so a correctly skipped frame is not
     -- a permanent false alarm. The excess side deliberately does NOT carry this filter
     -- (AC-28, revision 4).
     AND {{recordable_id(e.task_session_id)}}
     AND {{recordable_id(e.task_id)}}
     AND {{recordable_id(e.tool_call_id)}}
     -- The exact instant test only behind the kind test: a term on the indexed column alone is
     -- evaluated on every index entry of the window's day floor before the row is read, and
     -- utc9's strftime there was ~40% of the statement (BENCHMARKS.md, "the peers").
     AND (CASE WHEN e.kind = 'subagent_task' THEN {{utc9(e.created_at)}} END) >= :since!
     AND (e.task_session_id, e.tool_call_id) NOT IN (
       SELECT s.task_session_id, s.tool_call_id
         FROM task_session_subagents AS s
        WHERE s.observed_at >= :sinceFloor!
          AND {{before_since_text(s.observed_at)}}
          AND {{utc9(s.observed_at)}} >= :since!)
) AS shortfall;
