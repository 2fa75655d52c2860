/*
 * An unfinished (INVALID) idx_messages_subagent_candidates, left by a CREATE INDEX CONCURRENTLY that was
 * interrupted: dropped CONCURRENTLY (no lock on the host's writers) so the build can run again.
 * Sent only after observe_host_index.sql showed the package's own definition, invalid.
 */
/* @returns exec */
/* @name dropUnfinishedHostIndex */
DROP INDEX CONCURRENTLY IF EXISTS idx_messages_subagent_candidates;
