/*
 * The three activation keys in one read, each verbatim: NULL when the row is absent, ''
 * and legacy second-precision values exactly as stored (AC-24 point 5, AC-24f). Presence,
 * not value, decides AC-24c's state, so absence must stay distinguishable from ''.
 */
/* @returns one */
/* @name readActivationKeys */
SELECT (SELECT k.value FROM kandev_meta AS k WHERE k.key = :captureSinceKey!) AS "capture_since?",
       (SELECT k.value FROM kandev_meta AS k WHERE k.key = :backfillThroughKey!) AS "backfill_through?",
       (SELECT k.value FROM kandev_meta AS k WHERE k.key = :executionSinceKey!) AS "execution_since?";
