/*
 * The SQLite library this connection runs, read before any migration step: an older one than
 * the package needs would fail a step on every boot, so the runner reports ONE failed check
 * instead and runs nothing (src/migrations/database-version.ts). version_number is SQLite's
 * own SQLITE_VERSION_NUMBER encoding of "X.Y.Z", X*1000000 + Y*1000 + Z, so versions compare
 * as integers. CAST of text to INTEGER takes the longest integer prefix ('53.0' -> 53).
 */
/* @returns one */
/* @name readDatabaseVersion */
WITH v AS (
  SELECT sqlite_version() AS full_text,
         substr(sqlite_version(), instr(sqlite_version(), '.') + 1) AS minor_patch
)
SELECT v.full_text AS "version!",
       CAST(v.full_text AS INTEGER) * 1000000
         + CAST(v.minor_patch AS INTEGER) * 1000
         + CAST(substr(v.minor_patch, instr(v.minor_patch, '.') + 1) AS INTEGER) AS "version_number!"
  FROM v;
