/*
 * The database's schema version (PRAGMA schema_version): SQLite adds one to it on every change
 * of the schema, and VACUUM changes it too. Phase 1 of the staged backfill
 * (src/migrations/backfill-stage.ts) keeps it with each range's anchor: when its anchor message
 * is gone, a changed version is the only sign left that VACUUM may have renumbered the rowids.
 */
/* @returns one */
/* @name readSchemaVersion */
SELECT v.schema_version AS "version!::bigint" FROM pragma_schema_version() AS v;
