// The host's pool as the PostgreSQL adapters of one store see it: each query it (or a client it
// hands out) runs carries the package's own result parsers (./type-parsers.ts), whatever the
// host did to `pg.types`. Wrapped once where the store is created (./store.ts), so the reader,
// health and migrations get it without knowing (the writer sets the parsers on its own
// statements); everything else (pool events, counts, end) is the host's pool itself.
import type pg from 'pg';
import { PACKAGE_TYPES } from './type-parsers.js';

type QueryArgs = unknown[];

/** node-postgres query arguments (a text or a config, then its parameters and an optional callback), carrying the package's types. */
function typed(args: QueryArgs): QueryArgs {
  const first = args[0];
  if (typeof first === 'string') return [{ text: first, types: PACKAGE_TYPES }, ...args.slice(1)];
  if (first === null || typeof first !== 'object') return args;
  const config = first as { types?: unknown; submit?: unknown };
  if (config.types !== undefined || typeof config.submit === 'function') return args; // set already, or a Submittable
  return [{ ...config, types: PACKAGE_TYPES }, ...args.slice(1)];
}

/** Forwards everything to `target` except the members in `own`. */
function forward<T extends object>(target: T, own: Partial<Record<PropertyKey, unknown>>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.prototype.hasOwnProperty.call(own, prop)) return own[prop];
      const value: unknown = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

function typedClient<C extends pg.PoolClient>(client: C): C {
  if (typeof client !== 'object' || client === null) return client; // not a client: its use fails as it would have
  return forward(client, { query: (...args: QueryArgs) => (client.query as (...a: QueryArgs) => unknown)(...typed(args)) });
}

export function withPackageTypes(pool: pg.Pool): pg.Pool {
  if (typeof pool !== 'object' || pool === null) return pool; // not a pool: every call fails later, as it would have
  const query = (...args: QueryArgs) => (pool.query as (...a: QueryArgs) => unknown)(...typed(args));
  const connect = (callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void) => {
    if (typeof callback === 'function') {
      return pool.connect((err, client, done) => callback(err, client && typedClient(client), done));
    }
    return pool.connect().then(typedClient);
  };
  return forward(pool, { query, connect });
}
