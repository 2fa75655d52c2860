/*
 * The PostgreSQL server this pool talks to, read before any migration step: an older one than
 * the package supports is reported as ONE failed check and nothing runs
 * (src/migrations/database-version.ts). version_number is server_version_num, the server's
 * own integer encoding (150013 for 15.13), so versions compare as integers.
 */
/* @returns one */
/* @name readDatabaseVersion */
SELECT current_setting('server_version') AS "version!",
       current_setting('server_version_num')::int AS "version_number!";
