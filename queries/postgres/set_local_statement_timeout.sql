/*
 * A window's time limit (issue 32 item 5; src/migrations/backfill-windows.ts): the window walk
 * sizes its windows in time from the last one's, so a window that reaches from a sparse stretch of
 * the host's history into a dense one can hold many times the messages its size was chosen for
 * (an adversarial review measured 402,000 messages in one 8.9 s window, against a 500 ms target).
 * Its statement runs under a limit of a few times the target (never above the role's own
 * statement_timeout, which the pacing's target already divides), and a window the limit cancels
 * is retried a quarter as wide, as under a role's limit. Local: COMMIT or ROLLBACK restores the
 * connection's own setting, so the package never changes the host's timeout beyond the window.
 */
/* @returns one */
/* @name setLocalStatementTimeout */
SELECT set_config('statement_timeout', :statementTimeout!, true) AS "statement_timeout!";
