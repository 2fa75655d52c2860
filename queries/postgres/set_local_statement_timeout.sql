/*
 * A window's time limit (issue 32 item 5; src/migrations/backfill-windows.ts): the window walk
 * sizes its windows in time from the last one's, so a window that reaches from a sparse stretch of
 * the host's history into a dense one can hold many times the messages its size was chosen for
 * (an adversarial review measured 402,000 messages in one 8.9 s window, against a 500 ms target).
 * Its statement runs under a limit of four times the target, never above the connection's own
 * statement_timeout or transaction_timeout nor PostgreSQL's largest, and none at all where the
 * host's target is no finite number (windowLimitMs; a second review found a large target failing
 * every boot, and one above the role's limit raising it). A window the limit cancels is retried
 * a quarter as wide, as under a role's limit, and one that cannot shrink is retried without this
 * limit. Local: COMMIT or ROLLBACK restores the connection's own setting, so the package never
 * changes the host's timeout beyond the window.
 */
/* @returns one */
/* @name setLocalStatementTimeout */
SELECT set_config('statement_timeout', :statementTimeout!, true) AS "statement_timeout!";
