/*
 * Writes a kandev_meta key only if it is absent: activation keys are write-once (AC-24,
 * Persistence guarantees), so a key already present, whatever its precision, is never
 * rewritten (AC-24 point 5). Returns the number of rows written (0 or 1) via the driver.
 */
/* @returns exec */
/* @name writeMetaKeyOnce */
INSERT INTO kandev_meta (key, value) VALUES (:key!, :value!)
ON CONFLICT (key) DO NOTHING;
