// EXPLAIN of a generated PostgreSQL statement exactly as the package runs it: the text comes
// from the generated PreparedQuery itself (its `run` is handed a client that asks for the plan
// instead of rows), bound with the package's own parameters. `generic` prepares the statement
// and forces the generic plan, the one a prepared statement can fall into: parameters are then
// unknown at plan time, so partition pruning, if any, happens at executor start-up.
import type pg from 'pg';
import { pinSearchPath } from './pinned-search-path.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'Subplans Removed'?: number;
  /** A Result node's gate, evaluated once per execution (e.g. `($1 = '-infinity'::timestamp …)`). */
  'One-Time Filter'?: string;
  Plans?: PlanNode[];
}

export interface RunnableQuery<P> {
  run(params: P, client: { query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number }> }): Promise<unknown>;
}

/** Every node of a plan tree, depth first. */
export function flattenPlan(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flattenPlan)];
}

/** The sequential scans of `table` among a flattened plan's nodes. */
export const seqScansOf = (nodes: PlanNode[], table: string) => nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table);

export async function explainGenerated<P>(pool: pg.Pool, query: RunnableQuery<P>, params: P, generic: boolean): Promise<PlanNode[]> {
  const client = await pool.connect();
  let pinned = false;
  try {
    let plan: PlanNode | undefined;
    const explaining = {
      query: async (text: string, bindings: unknown[]) => {
        // A statement that tests JSON runs in a transaction with the search_path pinned
        // (test/helpers/pinned-search-path.ts): explained the same way, then rolled back.
        if (text.includes('pg_input_is_valid(')) {
          await client.query('BEGIN');
          pinned = true;
          await pinSearchPath(client);
        }
        if (!generic) {
          const r = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, bindings);
          plan = (r.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
        } else {
          await client.query('SET plan_cache_mode = force_generic_plan');
          try {
            await client.query(`PREPARE explained_statement AS ${text}`);
            // An array binding (a text[] parameter) as PostgreSQL's array literal, each element quoted.
            const literal = (b: unknown) => (Array.isArray(b) ? `{${b.map((e) => `"${String(e).replace(/["\\]/g, '\\$&')}"`).join(',')}}` : String(b));
            const literals = bindings.map((b) => (b === null ? 'NULL' : `'${literal(b).replace(/'/g, "''")}'`)).join(', ');
            const r = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE explained_statement(${literals})`);
            plan = (r.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
          } finally {
            await client.query('DEALLOCATE ALL');
            await client.query('RESET plan_cache_mode');
          }
        }
        return { rows: [], rowCount: 0 };
      },
    };
    await query.run(params, explaining);
    return flattenPlan(plan!);
  } finally {
    if (pinned) await client.query('ROLLBACK');
    client.release();
  }
}
