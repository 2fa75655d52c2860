// Every pg.Pool and pg.Client the repository creates handles 'error' (issue 11 item 8). An
// idle pooled client whose backend is killed (DROP DATABASE … WITH (FORCE) at a test's end, a
// restart, pg_terminate_backend) is reported by node-postgres as an 'error' event, and an
// 'error' event nobody listens for crashes the process: a fresh clone's `npm test` once failed
// under load that way (57P01 on a pool without a listener). This is the grep that keeps it out:
// - test/ and scripts/ TypeScript construct them only through scripts/lib/postgres-database.ts
//   (poolFor, clientFor, createDatabase), which attaches the listener;
// - anything else that constructs one (src/, the plain-JS child processes the tests spawn)
//   attaches an 'error' listener to it right after.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const HELPER = join('scripts', 'lib', 'postgres-database.ts');
/** The package's one pool set-up, which the helper's poolFor goes through. */
const OWN_POOL = join('src', 'postgres', 'own-pool.ts');
const THIS_FILE = join('test', 'layout-postgres-connections.test.ts');
/** Direct constructions in test/ or scripts/ TypeScript that cannot go through the helper, and why. */
const DIRECT_ALLOWED: Record<string, string> = {
  [join('test', 'migrations-activation.test.ts')]: 'a `node -e` child script in a string: it cannot import the TypeScript helper',
  [join('test', 'helpers', 'backfill-order-log.ts')]: 'a `node -e` child script in a string: it cannot import the TypeScript helper',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : SOURCE.test(p) ? [p] : [];
  });
}

/** `new Pool(`, `new pg.Pool(`, `new pg.native.Client(`, …: a node-postgres pool or client being made. */
const CONSTRUCTION = /\bnew\s+(?:[\w$]+\s*\.\s*)*(?:Pool|Client)\s*\(/g;
/** The variable a construction is assigned to, from the text before it on its line. */
const ASSIGNED_TO = /(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*$/;
/** How many lines after a construction its 'error' listener may come. */
const LISTENER_WITHIN_LINES = 3;

interface Construction {
  file: string;
  line: number;
  text: string;
  /** The constructed object's variable has an 'error' listener attached right after. */
  listened: boolean;
}

function constructionsIn(file: string, source: string): Construction[] {
  const lines = source.split('\n');
  const found: Construction[] = [];
  lines.forEach((line, i) => {
    for (const m of line.matchAll(CONSTRUCTION)) {
      const name = ASSIGNED_TO.exec(line.slice(0, m.index))?.[1];
      const after = lines.slice(i, i + 1 + LISTENER_WITHIN_LINES).join('\n');
      const listened = name !== undefined && new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\s*\\.\\s*(?:on|once)\\(\\s*['"]error['"]`).test(after);
      found.push({ file, line: i + 1, text: line.trim(), listened });
    }
  });
  return found;
}

const all = ['src', 'test', 'scripts']
  .flatMap(files)
  .filter((f) => f !== THIS_FILE)
  .flatMap((f) => constructionsIn(f, readFileSync(f, 'utf8')));
const where = (c: Construction) => `${c.file}:${c.line}: ${c.text}`;

describe('layout: PostgreSQL connections', () => {
  it('test/ and scripts/ TypeScript construct pools and clients only in scripts/lib/postgres-database.ts', () => {
    const direct = all.filter((c) => /^(test|scripts)\//.test(c.file) && /\.(ts|mts|cts)$/.test(c.file) && c.file !== HELPER && !(c.file in DIRECT_ALLOWED));
    expect(direct.map(where)).toEqual([]);
    // The helper (its client) and the pool set-up it goes through are still where they are made
    // (so the check above has something to route to).
    expect(all.filter((c) => c.file === HELPER).length).toBeGreaterThanOrEqual(1);
    expect(all.filter((c) => c.file === OWN_POOL).length).toBeGreaterThanOrEqual(1);
  });

  it('every pool and client constructed anywhere gets an error listener right after', () => {
    expect(all.filter((c) => !c.listened).map(where)).toEqual([]);
    expect(all.length).toBeGreaterThan(3); // src/postgres/own-pool.ts, the helper, the child fixtures
  });

  it('the detector finds constructions and listeners (so the checks above can fail)', () => {
    const sample = (text: string) => constructionsIn('sample.ts', text);
    expect(sample(`const pool = new pg.Pool({ max: 1 });`)).toMatchObject([{ listened: false }]);
    expect(sample(`const c = new Client(url);\n  c.on('error', () => {});`)).toMatchObject([{ listened: true }]);
    expect(sample(`const p: pg.Pool = new pg.native.Pool(cfg);\n\n\np.once("error", f);`)).toMatchObject([{ listened: true }]);
    expect(sample(`const p = new pg.Pool(cfg);\n\n\n\n\np.on('error', f);`)).toMatchObject([{ listened: false }]); // too far away
    expect(sample(`const a = new pg.Pool(cfg);\nb.on('error', f);`)).toMatchObject([{ listened: false }]); // another object's listener
    expect(sample(`createPostgresStore(new pg.Pool(cfg));`)).toMatchObject([{ listened: false }]); // never named, never listened
    expect(sample(`const db = new Database(file);`)).toEqual([]);
  });
});
