/*
 * AC-28 SHORTFALL, the alarm (AC-29): distinct (task_session_id, tool_call_id) keys of
 * subagent messages created at or after capture_since that have no task_session_subagents
 * row observed at or after it. A directed set difference, never netted against the excess
 * (revision 3), so no banked excess can absorb a missed write: the first miss counts.
 *
 * The spec's `expected EXCEPT observed`, written as `DISTINCT expected WHERE NOT EXISTS
 * observed`: the same set, because no key on either side can be NULL (the identity filter
 * below, NOT NULL columns). PostgreSQL plans it as an anti-join over two index range scans,
 * also under a generic plan (test/health-plans.test.ts).
 *
 * `msg` is AC-23b's normalization (revision 4): NULL, '', 'null' and any text that is not
 * valid JSON (valid_jsonb, queries/postgres/fragments/valid_jsonb.sql) read as
 * '{}', so one malformed row is a non-match, never an error that would silently disable
 * the check. `expected` names the columns the filters read; tool_call_id is the JSON string
 * or NULL (a number, an array, an object is not an id), one jsonpath call.
 *
 * Plan: `expected` is MATERIALIZED and its document expression fenced (OFFSET 0), so each
 * window message that passes the text prefilter is validated and parsed exactly once, and
 * kind and tool_call_id are read from that one jsonb (BENCHMARKS.md, "PostgreSQL dense
 * anti-joins": inlined, the planner copied the expression — validation, a subtransaction,
 * the parse — to every reference of a column derived from `meta`, four per document, and the
 * statement lost to the spec's own form on the dense store). A materialized CTE is computed
 * once whatever plan reads it, so a nested loop over it rereads stored rows, never the
 * documents; the anti-join's inner side is an index probe of idx_subagents_session_id per
 * expected key (test/health-plans.test.ts: custom and generic plans, with and without
 * statistics). The identity filter is one test per id whose default selectivity is the
 * spec's `<> ''` (a NULL test; recordable_id in queries/postgres/fragments/recordable_id.sql says why).
 *
 * Time (AC-24e, docs/timestamps.md): :since is the key rounded UP to the next whole
 * microsecond and bound as a TIMESTAMP, so `col >= :since` holds exactly when the column
 * value is at or after the key; timestamp against timestamp, so the session TimeZone plays
 * no part, and the bare-column range is what the index serves. (SQLite also takes
 * :sinceFloor, its index bound; this dialect needs none.)
 * Cost: a message whose text does not contain 'subagent_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is dropped by that test before any JSON is validated or parsed (and the
 * normalization maps it to '{}' all the same): only the window's few subagent messages reach
 * the parser (and PostgreSQL 15's PL/pgSQL validator).
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): metadata_or_empty, recordable_id, subagent_prefilter.
 */
/* @returns one */
/* @name countShortfallSinceCapture */
WITH expected AS MATERIALIZED (
  SELECT e.task_session_id, e.task_id,
         e.meta #>> '{normalized,kind}' AS kind,
         jsonb_path_query_first(e.meta, 'strict $.tool_call_id ? (@.type() == "string")', '{}', true) #>> '{}' AS tool_call_id
    FROM (SELECT m.task_session_id, m.task_id,
                 {{metadata_or_empty(m.metadata)}} AS meta
            FROM task_session_messages AS m
           WHERE m.created_at >= :since!::timestamp
             -- Always true for a row the line above admits; it makes the two a range, which the planner
             -- estimates narrow without statistics (a lone lower bound reads as a third of the table
             -- and, behind the fence, chose a sequential scan: test/health-plans.test.ts).
             AND m.created_at <= 'infinity'::timestamp
             AND {{subagent_prefilter(m.metadata)}}
          OFFSET 0) AS e
)
SELECT COUNT(*) AS "shortfall!" FROM (
  SELECT DISTINCT e.task_session_id, e.tool_call_id
    FROM expected AS e
   WHERE e.kind = 'subagent_task'
     -- AC-2 / AC-21a: the shortfall side excludes exactly what the writer and the backfill
     -- skip — an id that is not recordable (src/identity.ts: not a JSON string, empty, or
     -- beyond the indexable length) — so a correctly skipped frame is not a permanent false
     -- alarm. The excess side deliberately does NOT carry this filter (AC-28, revision 4).
     AND {{recordable_id(e.task_session_id)}}
     AND {{recordable_id(e.task_id)}}
     AND {{recordable_id(e.tool_call_id)}}
     AND NOT EXISTS (
       SELECT 1
         FROM task_session_subagents AS s
        WHERE s.task_session_id = e.task_session_id
          AND s.tool_call_id = e.tool_call_id
          AND s.observed_at >= :since!::timestamp)
) AS shortfall;
