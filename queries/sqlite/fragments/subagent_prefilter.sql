/*
 * subagent_prefilter(x): the text prefilter, a superset of "is a subagent message" for what
 * hosts write (backfill_subagent_contexts.sql says why, and why the needle is '_task').
 * GLOB, not instr(): the same answer on every document the JSON functions can read, at half
 * the cost (a leading '*' makes SQLite scan bytes for the first literal, '_', in a tight
 * loop; instr() steps the haystack character by character). Text is read up to its first
 * NUL by GLOB as by json_valid()/json_extract(), so a document they read as a subagent
 * message holds '"subagent_task"' before any NUL and passes.
 * Compared with 0, as instr() was: SQLite's planner guesses a bare GLOB rare and a comparison
 * common, and read_backfill_through.sql's index walk depends on the second guess (with a
 * bare GLOB it scanned and sorted the whole table: test/backfill-through-plan.test.ts).
 * CAST(x AS TEXT): metadata stored as a BLOB holding JSON text (a Go []byte argument writes
 * one) is matched as its text (GLOB on a BLOB is 0, which skipped such a message everywhere:
 * a review, 2026-12); the JSON functions already read such a BLOB as its text. The cast is
 * one opcode, a no-op on text (dense-1m: +1-2% on this scan; typeof() in a CASE cost +8%);
 * a number becomes text without '_task'. A JSONB BLOB (jsonb()) may pass, but json_valid()
 * rejects it, so it is skipped (docs/host-tables.md).
 * @anchor '*_task*'
 */
((CAST(x AS TEXT) GLOB '*_task*') > 0)
