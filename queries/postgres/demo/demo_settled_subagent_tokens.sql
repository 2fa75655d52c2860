/*
 * DEMO report — tokens per completed subagent. One row per settled subagent (its launching
 * tool call reached a terminal status, AC-11) with its total_tokens, which is NULL when the
 * agent never reported usage (AC-7: async_launched dispatches never do). The demo averages
 * the measured rows only and counts the NULL ones separately, because reading NULL as 0
 * would understate the average roughly four-fold (spec § The one shape ...).
 */
/* @name demoSettledSubagentTokens */
SELECT s.agent_status, s.total_tokens, s.source AS "source!"
  FROM task_session_subagents AS s
 WHERE s.settled_at IS NOT NULL;
