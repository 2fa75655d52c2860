// The packed tarball itself (issues 12 and 17, DESIGN §8): `npm pack` into a temporary
// directory, then the files it lists (entries, CLI, every .sql, declarations, every file the
// README links to), the CLI's executable bit and its published types (@arethetypeswrong/cli).
// What the tarball installs as (its manifest, source maps, declarations without `any`) is read
// in test/packaging-hosts.test.ts's projects.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, type PackedPackage } from './helpers/packed-package.js';
import { run } from './helpers/run-command.js';
import { manifest } from './helpers/packaging-fixtures.js';

let work: string;
let packed: PackedPackage;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'subagent-context-packaging-tarball-'));
  packed = await packPackage(work);
}, 25 * 60_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
});

describe('packaging: the tarball', () => {
  it('ships the entries, the CLI, every .sql and the declarations, and nothing else', () => {
    const files = new Set(packed.files);
    const targets = [...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))), ...Object.values(manifest.bin)].map(
      (p) => p.replace(/^\.\//, ''),
    );
    for (const t of targets) expect(files.has(t), t).toBe(true);
    for (const dir of ['queries', 'schema']) {
      const sql = (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.sql')).map((f) => join(dir, f));
      expect(sql.length).toBeGreaterThan(0);
      expect(
        packed.files.filter((f) => f.startsWith(`${dir}/`)),
        dir,
      ).toEqual(sql.sort());
    }
    const outside = packed.files.filter(
      (f) =>
        !/^(dist\/(src|generated)\/.*\.(js|d\.ts|js\.map)|(queries|schema)\/.*\.sql|docs\/[\w-]+\.md|test\/fixtures\/acp\/[\w-]+\.(jsonl|meta\.json)|package\.json|README\.md|CHANGELOG\.md|BENCHMARKS\.md|LICENSE)$/.test(
          f,
        ),
    );
    expect(outside).toEqual([]);
    expect(packed.files.some((f) => f.startsWith('dist/test') || f.startsWith('dist/scripts'))).toBe(false);
    expect(packed.files).toContain('LICENSE');
    expect(readFileSync(join(packed.stage, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} subagent-context contributors\n/);
  });

  it('ships every file the README links to, so no link is dead on npm', () => {
    const readme = readFileSync('README.md', 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/.test(t));
    expect(targets.length).toBeGreaterThan(8);
    // A link to a folder (`schema/host/`) is kept when the tarball holds a file under it; every
    // link of README.md and docs/*.md, anchors included, is test/docs-links.test.ts's.
    const shipped = (t: string) => packed.files.some((f) => f === t || f.startsWith(t.endsWith('/') ? t : `${t}/`));
    for (const t of new Set(targets)) expect(shipped(t.replace(/^\.\//, '')), t).toBe(true);
  });

  it('keeps the CLI executable after `npm run build` (the bin works from the repository too)', () => {
    expect(statSync(join(packed.stage, 'dist', 'src', 'cli.js')).mode & 0o111).toBe(0o111);
  });

  it('passes @arethetypeswrong/cli on the tarball, but for the one finding require(esm) implies', async () => {
    // Written to a file: attw exits before a piped stdout of this size is flushed.
    const report = join(work, 'attw.json');
    const attw = await run('sh', ['-c', `"$0" "$1" --format json > "$2"`, resolve('node_modules/.bin/attw'), packed.tarball, report], { cwd: work });
    const { problems } = JSON.parse(readFileSync(report, 'utf8')) as { problems: Record<string, { entrypoint: string; resolutionKind: string }[]> };
    // Every entry resolves, with types, for node10 (typesVersions), node16 ESM and bundlers. The
    // one finding left is by design: a `require()` resolves to the ES module, which Node
    // 20.19+/22.12+ load and TypeScript 5.8+ types under `module: nodenext` (the .cts program
    // above compiles and runs), but TypeScript's older `module: node16` rejects (README).
    expect(problems).toEqual({
      CJSResolvesToESM: Object.keys(manifest.exports)
        .filter((entrypoint) => entrypoint !== './package.json')
        .map((entrypoint) => ({ kind: 'CJSResolvesToESM', entrypoint, resolutionKind: 'node16-cjs' })),
    });
    expect(attw.code).toBe(1); // the control: attw reports it as a problem
  });
});
