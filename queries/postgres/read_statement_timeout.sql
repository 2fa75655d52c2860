/*
 * The role's statement_timeout in milliseconds (0: none), as this connection sees it: the
 * backfill sizes its chunks to a fraction of it (src/postgres/migrations.ts), so every
 * statement of the backfill fits a host's limit, which the package never turns off.
 */
/* @returns one */
/* @name readStatementTimeout */
SELECT setting::int AS "ms!" FROM pg_settings WHERE name = 'statement_timeout';
