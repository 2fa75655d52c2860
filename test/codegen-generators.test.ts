// Issue #31 item 3: one generator per dialect behind one interface (scripts/lib/generators/).
// GENERATORS is keyed by every DialectName, so a dialect without its generator is a type error
// (`npm run typecheck` checks the @ts-expect-error below: were a partial record accepted, the
// directive itself would fail), and at run time the record holds exactly DIALECTS.
import { describe, expect, it } from 'vitest';
import type { DialectGenerator } from '../scripts/lib/generators/dialect-generator.js';
import { GENERATORS } from '../scripts/lib/generators/index.js';
import { DIALECTS } from '../src/dialect.js';

describe('codegen generators', () => {
  it('one generator per dialect, each with the interface, and a record missing a dialect does not type', () => {
    expect(Object.keys(GENERATORS).sort()).toEqual([...DIALECTS].sort());
    for (const d of DIALECTS) {
      expect(typeof GENERATORS[d].generate, d).toBe('function');
      expect(typeof GENERATORS[d].checkStatements, d).toBe('function');
    }
    // @ts-expect-error postgres has no generator in this record
    const partial: typeof GENERATORS = { sqlite: GENERATORS.sqlite };
    expect(Object.keys(partial)).toEqual(['sqlite']);
    const distinct = new Set<DialectGenerator>(Object.values(GENERATORS));
    expect(distinct.size).toBe(DIALECTS.length);
  });

  it('each generator refuses only what its own tools would misread: a type hint on PostgreSQL, not on SQLite', () => {
    const hinted = {
      file: 'queries/x/count.sql',
      name: 'countX',
      statement: 'SELECT COUNT(*) AS "n!::bigint" FROM t',
    } as Parameters<DialectGenerator['checkStatements']>[0][number];
    expect(GENERATORS.sqlite.checkStatements([hinted])).toEqual([]);
    expect(GENERATORS.postgres.checkStatements([hinted])).toEqual([
      'queries/x/count.sql (countX): column "n": type hints are SQLite-only; PostgreSQL types its columns itself',
    ]);
  });
});
