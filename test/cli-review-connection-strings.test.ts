// A connection string in the wrong place is refused, never printed and never created (review
// of the CLI, bug 1). SUBAGENT_CONTEXT_DB or --sqlite holding a URL that is not postgres:// or
// postgresql:// (`postgresql+psycopg://`, `mysql://`, one after a stray blank) or a libpq
// `password=` string was read as a SQLite path: printed with its password (`reading sqlite
// …`, `no such SQLite file: …`), and `import` created that directory tree and a store in it.
// Now each is a usage error (exit 2) that names the variable or option and shows no secret,
// and nothing is written. The forms that are accepted stay accepted, in any case of the
// scheme, on both dialects. In process (src/cli/main.ts), from a scratch working directory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretMasker } from '../src/connection-secrets.js';
import { chooseTarget } from '../src/cli/default-target.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { byDialect } from './helpers/by-dialect.js';
import { RECORDED_PROJECTS } from './helpers/claude-import.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SECRET = `Sekr1t${randomBytes(4).toString('hex')}`;

/** Connection strings no option of the CLI takes, each carrying SECRET. */
const REFUSED = [
  `postgresql+psycopg://alice:${SECRET}@127.0.0.1:1/dpg`,
  `mysql://alice:${SECRET}@127.0.0.1:1/db`,
  ` postgres://alice:${SECRET}@127.0.0.1:1/db`,
  `\tpostgresql://alice:${SECRET}@127.0.0.1:1/db`,
  `host=127.0.0.1 port=1 password=${SECRET} dbname=d`,
  `host=127.0.0.1 PASSWORD = '${SECRET}' dbname=d`,
  `file:///srv/${SECRET}/store.db`,
  // Quoted, as Docker's --env-file keeps the quotes; a Go DSN (a review of the fixes).
  `"postgres://alice:${SECRET}@127.0.0.1:1/db"`,
  `<postgres://alice:${SECRET}@127.0.0.1:1/db>`,
  `alice:${SECRET}@tcp(127.0.0.1:1)/kandev`,
];

/** Each command that picks a database, as a user would run it. */
const COMMANDS = [
  ['report'],
  ['report', '--json'],
  ['health'],
  ['migrate'],
  ['migrate', '--create-host-tables'],
  ['import', 'claude-code', '--from', RECORDED_PROJECTS],
];

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** A scratch working directory: a path that is read as relative lands here, never in the checkout. */
function inScratch(): () => string {
  let scratch = '';
  const home = process.cwd();
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'cli-review-strings-'));
    process.chdir(scratch);
  });
  afterEach(() => {
    process.chdir(home);
    rmSync(scratch, { recursive: true, force: true });
  });
  return () => scratch;
}

/** Sets SUBAGENT_CONTEXT_DB for one run, then restores it. */
async function withVariable<T>(value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env.SUBAGENT_CONTEXT_DB;
  if (value === undefined) delete process.env.SUBAGENT_CONTEXT_DB;
  else process.env.SUBAGENT_CONTEXT_DB = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.SUBAGENT_CONTEXT_DB;
    else process.env.SUBAGENT_CONTEXT_DB = before;
  }
}

describe('cli review: a connection string in the wrong place', () => {
  const scratch = inScratch();

  it('SUBAGENT_CONTEXT_DB: exit 2, one line naming the variable, no secret, nothing created', async () => {
    for (const value of REFUSED) {
      for (const argv of COMMANDS) {
        const run = await withVariable(value, () => cli(argv));
        const label = `${argv.join(' ')} with ${JSON.stringify(value)}`;
        expect(run.code, `${label}: ${run.err}`).toBe(EXIT.usage);
        expect(run.err, label).toMatch(/^subagent-context: SUBAGENT_CONTEXT_DB looks like a connection string the CLI does not take .*\n$/);
        expect(run.err, label).toContain('give it a postgres:// or postgresql:// URL, or a SQLite file path');
        expect(run.out + run.err, label).not.toContain(SECRET);
        expect(readdirSync(scratch()), label).toEqual([]);
      }
    }
  });

  it('--sqlite, spaced or with =: exit 2, one line naming the option, no secret, nothing created', async () => {
    const commands = [...COMMANDS, ['demo'], ['host-index']];
    for (const value of REFUSED) {
      for (const argv of commands) {
        for (const option of [['--sqlite', value], [`--sqlite=${value}`]]) {
          const run = await withVariable(undefined, () => cli([...argv, ...option]));
          const label = `${argv.join(' ')} ${option.join(' ')}`;
          expect(run.code, `${label}: ${run.err}`).toBe(EXIT.usage);
          expect(run.err, label).toMatch(/^subagent-context: --sqlite takes a SQLite file path, and this looks like a connection string .*\n$/);
          expect(run.out + run.err, label).not.toContain(SECRET);
          expect(readdirSync(scratch()), label).toEqual([]);
        }
      }
    }
  });

  it('the proxy chooses through the same function: refused before any agent starts', () => {
    for (const value of REFUSED) expect(() => chooseTarget({}, { SUBAGENT_CONTEXT_DB: value }), value).toThrow(/^SUBAGENT_CONTEXT_DB looks like/);
  });

  it('the error-line masker takes a URL after any --name=, in any case, after a blank', () => {
    for (const arg of [
      `--sqlite=postgres://alice:${SECRET}@h/db`,
      `--html=POSTGRESQL://alice:${SECRET}@h/db`,
      ` postgres://alice:${SECRET}@h/db`,
      `mysql://alice:${SECRET}@h/db`,
      `"postgres://alice:${SECRET}@h/db"`,
    ]) {
      const url = arg
        .replace(/^--[^=]+=/, '')
        .trim()
        .replace(/^"|"$/g, '');
      const masked = secretMasker([arg])(`cannot open ${url}; password ${SECRET}`);
      expect(masked, arg).not.toContain(SECRET);
      expect(masked, arg).toContain('alice:***@h');
    }
  });
});

describe("cli review: a short password masked inside the CLI's own words (review of the docs, 2026-12-07)", () => {
  it('a secret is masked where it stands alone, a long one anywhere; the line stays readable and gives no letter of it away', () => {
    const mask = (arg: string, text: string) => secretMasker([arg])(text);
    // `a` and `data`, as a password, used to be masked in every word holding them.
    expect(mask('postgres://postgres:a@127.0.0.1:1/x', 'cannot reach the database (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:1')).toBe(
      'cannot reach the database (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(mask('postgres://u:data@h/x', "cannot reach the database; password 'data', data=x, ü data")).toBe(
      "cannot reach the database; password '***', ***=x, ü ***",
    );
    // Its URL is masked whole, whatever its length; an sslkey path wherever a driver quotes it.
    expect(mask('postgres://u:a@h/x', 'cannot open postgres://u:a@h/x')).toBe('cannot open postgres://u:***@h/x');
    expect(mask('postgres://u@h/x?sslkey=/k/id', "ENOENT: no such file or directory, open '/k/id'")).toBe("ENOENT: no such file or directory, open '***'");
    // Twelve characters or more: masked inside a word too (an encoding glued to it).
    expect(mask(`postgres://u:${SECRET}@h/x`, `x${SECRET}y`)).toBe('x***y');
    // A secret the masked URL shows in its own text is left (docs/security.md): masking it would garble the URL and `--postgres`.
    expect(mask('postgres://app:postgres@h/x', "--postgres: password 'postgres'")).toBe("--postgres: password 'postgres'");
    expect(mask('postgres://app:kandev@h/kandev_prod', "password 'kandev'; password 'other'")).toBe("password 'kandev'; password 'other'");
  });

  it('SUBAGENT_CONTEXT_DB with a one-letter password: the refusal reads as written', async () => {
    const err: string[] = [];
    const previous = process.env.SUBAGENT_CONTEXT_DB;
    process.env.SUBAGENT_CONTEXT_DB = 'mysql://u:a@h/d';
    try {
      expect(await runCli(['health'], { out: () => {}, err: (t) => void err.push(t) })).toBe(EXIT.usage);
    } finally {
      if (previous === undefined) delete process.env.SUBAGENT_CONTEXT_DB;
      else process.env.SUBAGENT_CONTEXT_DB = previous;
    }
    expect(err.join('')).toMatch(
      /^subagent-context: SUBAGENT_CONTEXT_DB looks like a connection string the CLI does not take \(a URL, or password=…; not shown: it may hold a password\)/,
    );
  });
});

describeBothDialects('cli review: the forms a store is named by stay accepted, in any case of the scheme', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => db.close());
  inScratch();

  /** The store's names: the path as is; the URL with its scheme in three cases. */
  const names = () =>
    byDialect(dialect, {
      sqlite: [db.location],
      postgres: ['postgres', 'POSTGRES', 'PostgreSQL'].map((scheme) => db.location.replace(/^[a-z]+/i, scheme)),
    });

  it('by the option and by SUBAGENT_CONTEXT_DB: the same health as the store itself answers', async () => {
    const expected = await db.store().checkHealth();
    for (const name of names()) {
      const option = byDialect(dialect, { sqlite: '--sqlite', postgres: '--postgres' });
      const byOption = await withVariable(undefined, () => cli(['health', '--json', option, name]));
      expect(byOption.err, name).toBe('');
      expect(JSON.parse(byOption.out), name).toEqual(expected);
      const byVariable = await withVariable(name, () => cli(['health', '--json']));
      expect(byVariable.err, name).toMatch(/^subagent-context: checking (sqlite|postgres) .* \(from SUBAGENT_CONTEXT_DB\)\n$/);
      expect(byVariable.code, name).toBe(byOption.code);
      expect(JSON.parse(byVariable.out), name).toEqual(expected);
    }
  });
});
