// Issue 30: nothing a user reads names a file the package does not ship. README.md and every
// docs/*.md the tarball holds are checked against the tarball's own file list (`npm pack
// --dry-run`, as a publish would pack the worktree): every relative link and its #anchor, every
// path written out, every root document named, no repository-only wording, and no spec
// criterion (AC-…) anywhere but docs/spec-map.md, the one page for reviewers. Contributor pages
// (docs/testing.md, docs/recipes.md, docs/proxy-architecture.md) are kept out of the tarball by package.json "files", so
// they may name test/ and src/; a shipped page may not link to them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentProblems, headingAnchors, type Doc } from './helpers/doc-references.js';
import { INSTALLS } from './helpers/packaging-fixtures.js';
import { run } from './helpers/run-command.js';

const SPEC_MAP = 'docs/spec-map.md';
const CONTRIBUTOR_PAGES = ['docs/testing.md', 'docs/recipes.md', 'docs/proxy-architecture.md'];

let files: string[];
const read = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

beforeAll(async () => {
  // --ignore-scripts: the list, not a build (dist/ is not what the documents point at).
  const packed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: '.' });
  expect(packed.code, packed.output).toBe(0);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { files: { path: string }[] }[];
  files = info.files.map((f) => f.path).sort();
}, 120_000);

function userDocs(): Doc[] {
  const docs = readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`)
    .filter((p) => files.includes(p));
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

describe('docs: what a user reads resolves inside the package', () => {
  it('ships README, the guides and the spec map, and keeps the contributor pages out', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(SPEC_MAP);
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
    for (const page of CONTRIBUTOR_PAGES) {
      expect(existsSync(page), page).toBe(true);
      expect(files, page).not.toContain(page);
    }
  });

  it('every link, anchor and path in README.md and the shipped docs/*.md is in the tarball; AC codes only in the spec map', () => {
    const docs = userDocs();
    expect(docs.length).toBeGreaterThan(10);
    const problems = docs.flatMap((doc) => documentProblems(doc, files, read, doc.path === SPEC_MAP));
    expect(problems).toEqual([]);
  });

  it('the README is a guide of at most 300 lines that links every shipped page', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    const shipped = files.filter((f) => /^docs\/[\w-]+\.md$/.test(f));
    const linked = new Set([...readme.matchAll(/\]\((docs\/[\w-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]));
    expect(shipped.filter((f) => !linked.has(f))).toEqual([]);
  });

  it("the README's TypeScript install line names every @types package the strict packaging projects install", () => {
    // test/packaging-hosts.test.ts compiles the README's examples with strict and skipLibCheck false in projects that
    // install these; a reader who leaves one out gets an implicit-any error on `import Database from 'better-sqlite3'`.
    const line = readFileSync('README.md', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('npm install -D typescript'));
    expect(line).toBeDefined();
    const types = [...INSTALLS.sqlite, ...INSTALLS.postgres].filter((p) => p.startsWith('@types/')).map((p) => p.slice(0, p.lastIndexOf('@')));
    expect(new Set(types)).toEqual(new Set(['@types/better-sqlite3', '@types/node', '@types/pg']));
    for (const t of types) expect(line, t).toContain(t);
  });

  it('the check fails where it should (control)', () => {
    const packedFiles = ['README.md', 'docs/a.md', 'schema/host/sqlite/001_host_tables.sql', 'queries/sqlite/report_cards.sql'];
    const docs: Record<string, string> = { 'docs/a.md': '# A\n\n## Steps\n' };
    const problems = (path: string, text: string, allowSpecCodes = false) => documentProblems({ path, text }, packedFiles, (p) => docs[p], allowSpecCodes);
    // Clean: links up and across, a folder, a placeholder path, an anchor that exists.
    expect(problems('docs/b.md', 'See [a](a.md#steps), [host](../schema/host/), `queries/<dialect>/report_*.sql`, [R](../README.md).')).toEqual([]);
    expect(problems('README.md', 'the [DDL](schema/host/) and [A](docs/a.md)')).toEqual([]);
    // Each kind of problem is found.
    expect(problems('README.md', '[x](docs/missing.md)')).toHaveLength(1);
    expect(problems('README.md', '[x](docs/a.md#nowhere)')).toHaveLength(1);
    expect(problems('docs/a.md', '[x](../../outside.md)')).toHaveLength(1);
    expect(problems('docs/a.md', 'proven by `test/foo.test.ts` in src/identity.ts')).toHaveLength(2);
    expect(problems('README.md', 'as BENCHMARKS.md shows')).toHaveLength(1);
    expect(problems('docs/a.md', 'as health-plans.test.ts pins')).toHaveLength(1);
    expect(problems('README.md', "the team's DESIGN.md and the Go reference")).toHaveLength(3 + 1); // DESIGN.md also a missing root doc
    expect(problems('README.md', 'never rejects (AC-27)')).toHaveLength(1);
    expect(problems('docs/spec-map.md', 'never rejects (AC-27)', true)).toEqual([]);
    expect(headingAnchors('# (a) A host that has the `tables`\n## x\n## x\n')).toEqual(new Set(['a-a-host-that-has-the-tables', 'x', 'x-1']));
  });
});
