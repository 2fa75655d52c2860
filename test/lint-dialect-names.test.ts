// Dialects as records (issue 31 item 5): eslint.config.js forbids comparing a value to a
// dialect's name in src/ and scripts/ outside the dialect module (src/dialect.ts) and codegen's
// own files. This runs the repository's ESLint config on probe text at those paths, so the rule
// is shown to fire where it applies and to stay quiet where it is exempt.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const PROBE = `export function f(d: string, e: string): number {
  if (d === 'sqlite') return 1;
  if ('postgres' !== e) return 2;
  switch (d) {
    case 'postgres':
      return 3;
  }
  return d === 'mysql' ? 4 : 5;
}
`;

const eslint = new ESLint();

async function dialectComparisons(filePath: string): Promise<number[]> {
  const [result] = await eslint.lintText(PROBE, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line);
}

describe('lint: no comparison to a dialect name', () => {
  it('fires in src/ and scripts/ on ===, !== and a switch case, never on other strings', async () => {
    expect(await dialectComparisons('src/cli/probe.ts')).toEqual([2, 3, 5]);
    expect(await dialectComparisons('scripts/bench/probe.ts')).toEqual([2, 3, 5]);
  }, 60_000);

  it('stays quiet in the dialect module and in codegen', async () => {
    expect(await dialectComparisons('src/dialect.ts')).toEqual([]);
    expect(await dialectComparisons('scripts/lib/codegen-sqlite.ts')).toEqual([]);
  }, 60_000);
});
