/*
 * Writes a kandev_meta key whatever it held: only for the backfill's own progress keys
 * (BACKFILL_PROGRESS_KEYS, src/migrations/backfill-step.ts), never for an activation key,
 * which is write-once (write_meta_key_once.sql).
 */
/* @returns exec */
/* @name upsertMetaKey */
INSERT INTO kandev_meta (key, value) VALUES (:key!, :value!)
ON CONFLICT (key) DO UPDATE SET value = excluded.value;
