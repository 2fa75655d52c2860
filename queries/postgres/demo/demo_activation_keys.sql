/*
 * DEMO report — the activation keys as stored in kandev_meta (AC-24), verbatim. The demo
 * reads them directly so it can show them even when checkHealth() is unavailable.
 */
/* @name demoActivationKeys */
SELECT m.key AS "key!", m.value AS "value!"
  FROM kandev_meta AS m
 WHERE m.key LIKE 'subagent_context_%'
 ORDER BY m.key;
