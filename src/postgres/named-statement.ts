// Runs a generated pgtyped statement as a NAMED prepared statement whose text is interpolated
// once. The hot path needs both: pgtyped's run() rebuilds the `$n` text on every call (~16 µs
// for the upsert), and an unnamed statement is parsed and planned by the server on every call
// (more than it costs to execute). node-postgres parses a named statement once per pooled
// connection and then only binds and executes it.
//
// The text and the parameter order come from the generated function itself: it is run once
// against a recording connection with a sentinel for each parameter, so pgtyped's own
// interpolation decides both, and nothing here duplicates it.
import type { IDatabaseConnection } from '@pgtyped/runtime';
import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

const SENTINEL = '\u0000subagent-context-parameter:';

export function namedStatement<TParams extends object>(
  name: string,
  generated: { run(params: TParams, connection: IDatabaseConnection): Promise<unknown> },
): (params: Required<TParams>, target: Queryable) => Promise<void> {
  let learned: { text: string; order: (keyof TParams)[] } | undefined;

  const learn = async (params: TParams) => {
    const probe = Object.fromEntries(Object.keys(params).map((k) => [k, SENTINEL + k])) as TParams;
    let recorded: { text: string; bindings: unknown[] } | undefined;
    await generated.run(probe, {
      query: async (t, bindings) => {
        recorded = { text: t, bindings };
        return { rows: [], rowCount: 0 };
      },
    });
    if (!recorded || !recorded.bindings.every((b) => typeof b === 'string' && b.startsWith(SENTINEL))) {
      throw new Error(`${name}: could not learn the statement's parameter order`);
    }
    return { text: recorded.text, order: recorded.bindings.map((b) => (b as string).slice(SENTINEL.length) as keyof TParams) };
  };

  return async (params, target) => {
    const { text, order } = learned ?? (learned = await learn(params));
    const values: unknown[] = new Array(order.length);
    for (let i = 0; i < order.length; i++) values[i] = params[order[i]] ?? null;
    await target.query({ name, text, values });
  };
}
