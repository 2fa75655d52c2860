/*
 * The role's time limit on one statement or transaction in milliseconds (0: none), as this
 * connection sees it: the smaller of statement_timeout and, on PostgreSQL 17+,
 * transaction_timeout, where set. The backfill sizes its chunks (each one transaction) to a
 * fraction of it (src/postgres/migrations.ts), so every statement and transaction of the
 * backfill fits a host's limit, which the package never turns off. Before 17 the second
 * setting does not exist, and the first one alone answers.
 */
/* @returns one */
/* @name readStatementTimeout */
SELECT COALESCE(min(setting::int) FILTER (WHERE setting::int > 0), 0) AS "ms!"
  FROM pg_settings
 WHERE name IN ('statement_timeout', 'transaction_timeout');
