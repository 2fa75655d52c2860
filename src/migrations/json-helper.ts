// PostgreSQL's pg_input_is_valid(text, text) as queries/postgres/observe_json_helper.sql
// judges it: the function the backfill and the health statements call to test JSON validity
// (queries/postgres/fragments/valid_jsonb.sql) and run as whoever migrates or checks health.
// On PostgreSQL 16 and later it is the built-in (always current); on 15 the package installs
// its own (schema/postgres/004). Only the built-in or the package's own may run (issue #16
// item 3); a function another role planted under the name 0.2 used, subagent_context_is_json,
// is no longer called at all (issue 30 item 8). SQLite has no such object (SQLITE_JSON_HELPER).

/** 'absent' | 'current' | 'outdated' (the package's, an earlier definition) | 'untrusted' (planted). */
export type JsonHelperState = 'absent' | 'current' | 'outdated' | 'untrusted';

export interface JsonHelper {
  readonly state: JsonHelperState;
  /** The function an unqualified call resolves to, `schema.name(text) owned by role r`; null when absent. */
  readonly found: string | null;
}

/**
 * SQLite's answer, without a statement: it needs no helper (json_valid is built in), and a
 * database file cannot carry a function for another role to plant: an application-defined
 * function lives on the connection that registered it, i.e. in the host's own code
 * (test/migrations-planted-helper.test.ts).
 */
export const SQLITE_JSON_HELPER: JsonHelper = Object.freeze({ state: 'current', found: null });

const STATES: readonly JsonHelperState[] = ['absent', 'current', 'outdated', 'untrusted'];

export function toJsonHelper(state: unknown, found: unknown): JsonHelper {
  // An unreadable answer is treated as planted: doubt never runs the function.
  const known = STATES.find((s) => s === state) ?? 'untrusted';
  return { state: known, found: typeof found === 'string' ? found : null };
}

/**
 * Whether a statement that calls the helper may run: the package's own function, current or
 * an earlier definition (both owned by the operator, in the package's schema). Absent is no
 * better than planted: an unqualified call with nothing of ours to resolve to could land on an
 * overload another role created.
 */
export function jsonHelperRunnable(helper: JsonHelper): boolean {
  return helper.state === 'current' || helper.state === 'outdated';
}

/** Why a statement that calls the helper is not run, for the failed step's and health's WARN. */
export function jsonHelperRefusal(helper: JsonHelper): string {
  if (helper.state === 'absent') return 'pg_input_is_valid(text, text) is missing (run migrate); statements that read message metadata are not run';
  return (
    `pg_input_is_valid(text, text) resolves to ${helper.found ?? 'a function'}, which is neither PostgreSQL's built-in nor the package's own ` +
    '(that must live in the schema of task_session_subagents and be owned by the current user, the table owner or a superuser); ' +
    'it is never created over or executed: drop it, or take it off search_path'
  );
}
