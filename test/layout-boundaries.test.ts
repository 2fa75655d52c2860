// Which folders of src/ may import which (issue 31 items 4 and 5): the report computes and the
// views render, so src/report imports nothing from src/render (the views import the report's
// types and derived figures, src/report/derived-figures.ts); the CLI and the demo stand apart,
// the CLI's demo command alone loading the demo's entry, and anything both need lives on
// neutral ground (src/database-target.ts, src/connection-secrets.ts). This is the grep that
// says so, over static and dynamic imports alike.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative module a file imports (`from '…'`, `import('…')`, `export … from '…'`), as a path from the repository root. */
function importsOf(file: string, source: string): string[] {
  const specs = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

const edges = files('src').flatMap((file) => importsOf(file, readFileSync(file, 'utf8')).map((to) => ({ from: file, to })));
const under = (dir: string) => (path: string) => path.startsWith(`${dir}/`);
const crossing = (a: string, b: string) => edges.filter((e) => under(a)(e.from) && under(b)(e.to)).map((e) => `${e.from} -> ${e.to}`);

describe('layout: import boundaries in src/', () => {
  it('src/report imports nothing from src/render', () => {
    expect(crossing('src/report', 'src/render')).toEqual([]);
  });

  it('src/demo imports nothing from src/cli', () => {
    expect(crossing('src/demo', 'src/cli')).toEqual([]);
  });

  it("src/cli imports from src/demo only the demo's entry, only from the demo command", () => {
    expect(crossing('src/cli', 'src/demo')).toEqual(['src/cli/demo-command.ts -> src/demo/index.ts']);
  });

  it('the import reader finds static, dynamic and re-exported imports (so the checks above can fail)', () => {
    const found = importsOf(
      'src/demo/x.ts',
      `import { a } from '../cli/a.js';\nconst b = await import('../cli/b.js');\nexport { c } from './c.js';\nimport x from 'pg';`,
    );
    expect(found).toEqual(['src/cli/a.ts', 'src/cli/b.ts', 'src/demo/c.ts']);
  });
});
