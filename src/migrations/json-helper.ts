// PostgreSQL's pg_input_is_valid(text, text) as queries/postgres/observe_json_helper.sql
// judges it: the function the backfill and the health statements call to test JSON validity
// (queries/postgres/fragments/valid_jsonb.sql), under the search_path they pin first
// (queries/postgres/set_local_search_path.sql), and run as whoever migrates or checks health.
// On PostgreSQL 16 and later it is the built-in (always current); on 15 the package's own in
// the schema subagent_context (schema/postgres/004). A function another role put on the
// session's search_path under that name is never reached, so it neither runs nor stops the
// package (issue 30 items 7 and 8); only on 15, a subagent_context another role made first (a
// role with CREATE on the database) is refused, never run (issue #16 item 3). SQLite has no
// such object (SQLITE_JSON_HELPER).

/** 'absent' | 'current' | 'outdated' (the package's, an earlier definition) | 'untrusted' (another role's). */
export type JsonHelperState = 'absent' | 'current' | 'outdated' | 'untrusted';

export interface JsonHelper {
  readonly state: JsonHelperState;
  /**
   * What the statements call, or what stands in its way: `pg_catalog.pg_input_is_valid(text, text)`
   * (16+), `subagent_context.pg_input_is_valid(text, text) owned by role r`, or `schema
   * subagent_context owned by role r` (15); null when absent.
   */
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
  // An unreadable answer is treated as another role's: doubt never runs the function.
  const known = STATES.find((s) => s === state) ?? 'untrusted';
  return { state: known, found: typeof found === 'string' ? found : null };
}

/**
 * Whether a statement that calls the helper may run: the package's own function, current or
 * an earlier definition (both in the package's schema, owned by a role it trusts). Absent is
 * no better than another role's: with nothing of the package's on the pinned path, the call
 * would fall through to the session's search_path.
 */
export function jsonHelperRunnable(helper: JsonHelper): boolean {
  return helper.state === 'current' || helper.state === 'outdated';
}

/** Why a statement that calls the helper is not run, for the failed step's and health's WARN. */
export function jsonHelperRefusal(helper: JsonHelper): string {
  if (helper.state === 'absent')
    return "PostgreSQL 15's JSON helper subagent_context.pg_input_is_valid(text, text) is missing (run migrate); statements that read message metadata are not run";
  return (
    `PostgreSQL 15's JSON helper is not the package's own: ${helper.found ?? 'unreadable'}. ` +
    'The package runs only the subagent_context.pg_input_is_valid(text, text) it created, in a schema subagent_context owned by ' +
    'the current user, the table owner or a superuser, which the current role may use; this is never created over or executed. ' +
    "To go on, remove that schema, or have a DBA make it the operator's (its owner the role that migrates)"
  );
}
