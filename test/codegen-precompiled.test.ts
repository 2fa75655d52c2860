// The PostgreSQL statements ship precompiled (issue 17 item 6): codegen writes each one's `$n`
// text and parameter order into generated/postgres/, and src/postgres/prepared-query.ts binds
// values in that order, so the package needs no @pgtyped/runtime at run time. These tests
// prove, for every statement of queries/postgres/ (the product's and the demo's), that the
// committed generated function sends exactly what pgtyped's own runtime would send for the
// same .sql: the same text, the same values in the same order, the same result-column names.
import { parseSQLFile, queryASTToIR, TransformType } from '@pgtyped/parser';
import { PreparedQuery } from '@pgtyped/runtime';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as demo from '../generated/postgres/demo/index.js';
import * as product from '../generated/postgres/index.js';
import { loadFragments } from '../scripts/lib/codegen-fragments.js';
import { precompile } from '../scripts/lib/generators/postgres/generator.js';
import { expandedQueryText } from '../scripts/lib/query-files.js';
import { PostgresPreparedQuery } from '../src/postgres/prepared-query.js';

const generated: Record<string, unknown> = { ...product, ...demo };

/** Every statement of queries/postgres/ with pgtyped's IR of it, as pgtyped's CLI builds it
 * from the text codegen hands it (fragment includes expanded). */
const fragments = loadFragments('.', 'postgres');
const statements = ['', 'demo'].flatMap((folder) => {
  const dir = join('queries', 'postgres', folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .flatMap((f) =>
      parseSQLFile(expandedQueryText('.', join(dir, f), fragments)).queries.map((ast) => ({ file: join(dir, f), name: ast.name, ir: queryASTToIR(ast) })),
    );
});

interface Sent {
  text: string;
  values: unknown[];
}

/** A connection that records what it is sent and answers with rows whose column names carry pgtyped's hint suffixes. */
function recorder(): { sent: Sent[]; query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number }> } {
  const sent: Sent[] = [];
  return {
    sent,
    async query(text, values) {
      sent.push({ text, values });
      return { rows: [{ 'observed_at!': 'a', 'settled_at?': null, plain: 1 }], rowCount: 1 };
    },
  };
}

describe('codegen: precompiled PostgreSQL statements', () => {
  it('covers every statement of queries/postgres (product and demo)', () => {
    expect(statements.length).toBeGreaterThan(20);
    expect(statements.some((s) => s.file.includes('demo'))).toBe(true);
    for (const s of statements) expect(generated[s.name], s.name).toBeInstanceOf(PostgresPreparedQuery);
    expect(Object.values(generated).filter((v) => v instanceof PostgresPreparedQuery)).toHaveLength(statements.length);
  });

  it.each(statements.map((s) => [s.name, s] as const))('%s sends what @pgtyped/runtime would send', async (_name, s) => {
    const ours = generated[s.name] as PostgresPreparedQuery<Record<string, unknown>, unknown>;
    // A distinct value per parameter, so a swapped order cannot pass.
    const params = Object.fromEntries(s.ir.params.map((p, i) => [p.name, `value-${i}-${p.name}`]));
    const theirs = recorder();
    const mine = recorder();
    const theirRows = await new PreparedQuery<Record<string, unknown>, unknown>(s.ir).run(params, theirs);
    const myRows = await ours.run(params, mine);
    expect(mine.sent).toEqual(theirs.sent);
    expect(mine.sent[0].text).not.toMatch(/(?<![:\w]):[a-z]\w*!/); // no `:name!` left
    expect(myRows).toEqual(theirRows);
    expect(ours.paramNames).toEqual(precompile(s.ir).paramNames);
    // A parameter left out binds NULL (pgtyped passes undefined, which node-postgres sends as NULL).
    if (s.ir.params.length > 0) expect(ours.values({})).toEqual(s.ir.params.map(() => null));
  });

  it('the control: a swapped parameter order is caught', async () => {
    const s = statements.find((x) => x.ir.params.length >= 2)!;
    const params = Object.fromEntries(s.ir.params.map((p, i) => [p.name, `value-${i}`]));
    const ours = generated[s.name] as PostgresPreparedQuery<Record<string, unknown>, unknown>;
    const swapped = new PostgresPreparedQuery<Record<string, unknown>, unknown>(ours.name, ours.text, [...ours.paramNames].reverse());
    const theirs = recorder();
    const mine = recorder();
    await new PreparedQuery<Record<string, unknown>, unknown>(s.ir).run(params, theirs);
    await swapped.run(params, mine);
    expect(mine.sent).not.toEqual(theirs.sent);
  });

  it('refuses to precompile a spread or pick parameter (its `$n` count depends on the value)', () => {
    const [ast] = parseSQLFile(
      '/* @name pickByIds\n  @param ids -> (...)\n*/\nSELECT id FROM task_session_subagents WHERE id IN :ids AND source = :source!;',
    ).queries;
    const ir = queryASTToIR(ast);
    expect(ir.params.find((p) => p.name === 'ids')?.transform.type).toBe(TransformType.ArraySpread);
    expect(() => precompile(ir)).toThrow(/:ids: only scalar parameters can be precompiled/);
  });
});
