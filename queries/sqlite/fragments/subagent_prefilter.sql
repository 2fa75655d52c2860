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
 * @anchor '*_task*'
 */
((x GLOB '*_task*') > 0)
