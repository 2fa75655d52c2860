// checkHealth(), dialect-neutral: AC-24c's state, AC-28's two directions, AC-28a's absent-key
// branch, AC-28b's confirmation and AC-29's scoped attribution, as one HealthReport. It rejects
// only with a HealthCheckError: a driver failure becomes `database_error` with the driver's
// error on `cause` (docs/health.md, Errors).
import type { StoreContext } from '../dialect.js';
import { errorMessage } from '../errors.js';
import { isBoundaryInstant } from '../column-time.js';
import { parseInstant } from '../instant.js';
import type { HealthReport } from '../types.js';
import { jsonHelperRefusal, jsonHelperRunnable, type JsonHelper } from '../migrations/json-helper.js';
import { classifyActivationState } from './activation-state.js';
import { HealthCheckError } from './errors.js';
import type { HealthQueries, StoreTable, TablePresence, WindowCounts } from './queries.js';
import { decideVerdict } from './verdict.js';

function requireTables(present: TablePresence, tables: readonly StoreTable[], hint: string): void {
  const missing = tables.filter((t) => !present[t]);
  if (missing.length) throw new HealthCheckError('missing_tables', `missing table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: ${hint}`);
}

/**
 * Issue #16 item 3: the shortfall and excess statements call PostgreSQL's
 * pg_input_is_valid (the built-in, or on PostgreSQL 15 the package's own), which runs as this connection's role. One another role planted
 * (or none at all) is reported and never run: a planted one returning false would blind the
 * very check that exists to catch lost rows.
 */
function requireTrustedHelper(helper: JsonHelper, ctx: StoreContext): void {
  if (jsonHelperRunnable(helper)) return;
  const message = `the health comparison was not run: ${jsonHelperRefusal(helper)}`;
  ctx.logger.warn({ dialect: ctx.dialect, json_helper: helper.found, state: helper.state }, `subagent-context health: ${message}`);
  throw new HealthCheckError('untrusted_object', message);
}

/**
 * AC-28b: a non-zero shortfall is evaluated a second time and only the second value is
 * reported, so a transient skew (a session cascade-deleting mid-statement) that the second
 * evaluation no longer sees never becomes a 'shortfall' verdict.
 */
async function confirmedShortfall(queries: WindowCounts, sinceNs: bigint, ctx: StoreContext): Promise<number> {
  const first = await queries.countShortfall(sinceNs);
  if (first === 0) return 0;
  const second = await queries.countShortfall(sinceNs);
  if (second === 0) ctx.logger.info?.({ dialect: ctx.dialect, first, second }, 'health: shortfall not confirmed by a second evaluation (AC-28b)');
  return second;
}

export async function checkHealth(queries: HealthQueries, ctx: StoreContext): Promise<HealthReport> {
  try {
    return await evaluateHealth(queries, ctx);
  } catch (err) {
    if (err instanceof HealthCheckError) throw err;
    throw new HealthCheckError('database_error', `the database failed during the health check: ${errorMessage(err)}`, { cause: err });
  }
}

async function evaluateHealth(queries: HealthQueries, ctx: StoreContext): Promise<HealthReport> {
  // One probe answers both table checks: the tables are the host's and the package's, and
  // nothing here creates or drops one. The JSON helper's probe (catalog reads that cannot
  // fail on a missing object) runs beside the probe and the keys; its answer is judged only
  // once a comparison is due, after the checks that come first.
  const tablesAndKeys = queries.probeTables().then(async (present) => {
    requireTables(present, ['kandev_meta'], 'the package has never been migrated here (run `subagent-context migrate`)');
    return { present, keys: await queries.readKeys() };
  });
  const [{ present, keys }, helper] = await Promise.all([tablesAndKeys, queries.jsonHelper()]);
  const state = classifyActivationState(keys);

  // AC-28a: without capture_since there is no window; the comparison is NOT run and the
  // missing key is the signal (AC-24c rows three and four).
  if (keys.capture_since === null) {
    return { keys, state, shortfall: null, excess: null, collisions: null, last_observed_at: null, verdict: 'not_activated' };
  }

  // AC-24e: the key is parsed, never compared as text. A value that is not an instant (''
  // included: AC-24f's sentinel belongs to backfill_through, never to capture_since) cannot
  // bound a window, and guessing one would either hide a shortfall or invent one.
  // Nor can one outside the columns' range (1970 … 9999, the report's range too).
  const sinceNs = parseInstant(keys.capture_since);
  if (sinceNs === null || !isBoundaryInstant(sinceNs)) {
    throw new HealthCheckError(
      'invalid_capture_since',
      `kandev_meta ${JSON.stringify(keys.capture_since)} under subagent_context_capture_since is not an instant in 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z, so no health window can be bound`,
      { keys },
    );
  }
  requireTables(present, ['task_session_messages', 'task_session_subagents'], 'the health comparison reads both');
  requireTrustedHelper(helper, ctx);

  // Two chains at once, each led by one of the anti-joins that scan the window: on a pool
  // they run side by side on two connections (at most two, so a health check never takes more
  // of the host's pool than that); SQLite's statements are synchronous and run in turn. The
  // verdict's two inputs stay in order: the scoped MAX is read after the confirmed shortfall,
  // so a row that lands during the check and clears the shortfall is also in the MAX (read
  // beside it, the MAX could predate that row and report nothing_since_activation).
  // On PostgreSQL each chain is one transaction with its search_path pinned (queries.ts).
  const chain = <T>(run: (counts: WindowCounts) => Promise<T>): Promise<T> => (queries.pinnedChain ? queries.pinnedChain(run) : run(queries));
  const [[shortfall, lastObservedAt], [excess, collisions]] = await Promise.all([
    chain((q) => confirmedShortfall(q, sinceNs, ctx).then(async (n) => [n, await q.maxObservedAt(sinceNs)] as const)),
    chain((q) => q.countExcess(sinceNs).then(async (n) => [n, await q.countCollisions(sinceNs)] as const)),
  ]);
  return {
    keys,
    state,
    shortfall,
    excess,
    collisions,
    last_observed_at: lastObservedAt,
    verdict: decideVerdict({ captureSincePresent: true, confirmedShortfall: shortfall, lastObservedAt }),
  };
}
