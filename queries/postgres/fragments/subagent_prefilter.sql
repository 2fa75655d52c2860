/*
 * subagent_prefilter(x): the text prefilter, a superset of "is a subagent message" for what
 * hosts write (backfill_subagent_contexts.sql says why).
 * @anchor strpos(
 */
(strpos(x, 'subagent_task') > 0)
