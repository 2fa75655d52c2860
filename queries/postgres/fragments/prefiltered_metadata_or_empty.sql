/*
 * prefiltered_metadata_or_empty(x): metadata_or_empty for rows already past
 * subagent_prefilter (which NULL, '' and 'null' never pass), for the backfill and its mark:
 * invalid JSON reads as '{}', x read as text whatever the column's type (valid_jsonb).
 * A document jsonb refuses only for its \u0000 escapes also reads as '{}' here, where health
 * reads it (jsonb_or_empty): the NUL-tolerant reading made the backfill's statements slower under
 * load, enough that a role's 100 ms statement_timeout failed the mark's walk on every try
 * (test/migrations-backfill-statement-timeout.test.ts beside the browser suites; cause not
 * found), so the backfill keeps the reading of 0.2 and docs/migrations.md says so.
 * @requires subagent_prefilter
 */
(CASE WHEN {{valid_jsonb(x)}} THEN x::jsonb ELSE '{}'::jsonb END)
