// PostgreSQL's subagent_context_is_json(text), as queries/postgres/observe_json_helper.sql
// judges it: the one function the package installs and then runs as whoever migrates or
// checks health. Only the package's own may run (issue #16 item 3); SQLite has no such
// object (SQLITE_JSON_HELPER).

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
  if (helper.state === 'absent') return 'subagent_context_is_json(text) is missing (run migrate); statements that read message metadata are not run';
  return (
    `subagent_context_is_json(text) resolves to ${helper.found ?? 'a function'}, which the package did not create ` +
    '(it must live in the schema of task_session_subagents and be owned by the current user, the table owner or a superuser); ' +
    'it is never created over or executed: drop it, or take it off search_path'
  );
}
