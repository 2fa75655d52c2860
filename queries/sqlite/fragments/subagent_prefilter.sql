/*
 * subagent_prefilter(x): the text prefilter, a superset of "is a subagent message" for what
 * hosts write (backfill_subagent_contexts.sql says why, and why the needle is '_task').
 * @anchor '_task'
 */
(instr(x, '_task') > 0)
