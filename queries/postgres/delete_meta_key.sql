/*
 * Deletes a kandev_meta key: only the backfill's own progress keys, in the transaction that
 * writes the activation keys (src/migrations/backfill-step.ts). An activation key is never
 * deleted.
 */
/* @returns exec */
/* @name deleteMetaKey */
DELETE FROM kandev_meta WHERE key = :key!;
