// No secret a connection string carries is ever printed (#16 item 4), the real binary on
// PostgreSQL (a SQLite target is a file name and carries none). node-postgres takes the
// password from the userinfo OR the query string (`?password=` wins), and `sslpassword` and
// `sslkey` are query parameters too: each command — migrate, health, report (human, --json,
// --html page), demo — and each failure (an unreachable server, a missing sslkey file whose
// ENOENT echoes the path, a database the demo refuses) is run with the secrets in both
// places, and no secret appears in stdout, stderr or the page, in any encoding. The proxy too:
// its stderr and log, and its writer's command line (which any local user can read).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, poolFor, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { assertBuilt, CLI, runCliBinary, type CliRun } from './helpers/cli.js';
import { PROXY_TEST_ENV, proxyWriterPid } from './helpers/proxy-store.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

beforeAll(assertBuilt);

const tag = randomBytes(4).toString('hex');
/** The role's real password: characters that URL encoding changes, so every encoding is checked. */
const PASSWORD = `Pw/${tag}@ü+!`;
const SSL_PASSWORD = `SslPass-${tag}`;
const KEY_DIR = `/nonexistent/KeyDir-${tag}`;
const SECRETS = [PASSWORD, encodeURIComponent(PASSWORD), new URLSearchParams({ p: PASSWORD }).toString().slice(2), SSL_PASSWORD, KEY_DIR, `KeyDir-${tag}`];

function expectNoSecret(label: string, ...texts: string[]): void {
  for (const text of texts) for (const secret of SECRETS) expect(text.includes(secret), `${label}: ${secret} in ${text.slice(0, 400)}`).toBe(false);
}

describe('cli: no secret of a connection string in any output [postgres]', () => {
  const role = `sc_secret_${process.pid}_${tag}`;
  let admin: pg.Pool;
  let db: TestDb;
  let dir: string;
  const empties: CreatedDatabase[] = [];
  /** The URL of `database` for the role, with its secrets in the userinfo or in the query string. */
  const urls = (location: string) => {
    const base = new URL(location);
    base.username = role;
    base.password = '';
    const inUserinfo = new URL(base);
    inUserinfo.password = encodeURIComponent(PASSWORD);
    inUserinfo.searchParams.set('sslpassword', SSL_PASSWORD);
    const inQuery = new URL(base);
    inQuery.searchParams.set('password', PASSWORD);
    inQuery.searchParams.set('sslpassword', SSL_PASSWORD);
    return { userinfo: inUserinfo.toString(), query: inQuery.toString() };
  };

  beforeAll(async () => {
    admin = poolFor({ connectionString: inject('pgUrl'), max: 1 });
    await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${PASSWORD.replace(/'/g, "''")}'`);
    db = await openTestDb('postgres', 'package');
    await seedReportFixture(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-secrets-'));
  });
  afterAll(async () => {
    await db.close();
    for (const e of empties) await e.drop();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const form of ['userinfo', 'query'] as const) {
    it(`secrets in the ${form}: migrate, health, report (human, --json, --html) and demo print none, and show the URL masked`, async () => {
      const url = urls(db.location)[form];
      const runs: [string, CliRun][] = [];
      for (const args of [['migrate'], ['migrate', '--json'], ['health'], ['health', '--json'], ['report'], ['report', '--json']]) {
        runs.push([args.join(' '), await runCliBinary([args[0], '--postgres', url, ...args.slice(1)])]);
      }
      const page = join(dir, `page-${form}.html`);
      runs.push(['report --html', await runCliBinary(['report', '--postgres', url, '--html', page])]);
      const empty = await createDatabase(inject('pgUrl'), `secrets_demo_${process.pid}_${tag}_${form}`);
      empties.push(empty);
      runs.push(['demo', await runCliBinary(['demo', '--postgres', urls(empty.url)[form]], 120_000)]);
      for (const [label, run] of runs) {
        expect(run.code, `${label}: ${run.stderr}`).not.toBe(7); // the URL connected: these are real outputs
        expectNoSecret(label, run.stdout, run.stderr);
      }
      const html = readFileSync(page, 'utf8');
      expectNoSecret('report --html page', html);
      // The URL is shown, masked: user and host, never the secrets.
      const masked = form === 'userinfo' ? `${role}:***@` : 'password=***';
      for (const [label, run] of runs.filter(([l]) => !l.endsWith('--json'))) expect(run.stdout, label).toContain(masked);
      expect(html).toContain(masked);
      expect(runs.find(([l]) => l === 'demo')![1].stdout).toContain('sslpassword=***');
    });

    it(`secrets in the ${form}: no failure line shows one (unreachable server, a missing sslkey file, a database the demo refuses)`, async () => {
      const unreachable = new URL(urls(db.location)[form]);
      unreachable.port = '1';
      const sslkey = new URL(urls(db.location)[form]);
      sslkey.searchParams.set('sslkey', `${KEY_DIR}/client.key`);
      const failures: [string, string[], number][] = [
        ['health, unreachable', ['health', '--postgres', unreachable.toString()], 7],
        ['report --html, unreachable', ['report', '--postgres', unreachable.toString(), '--html', join(dir, 'never.html')], 7],
        ['migrate, missing sslkey', ['migrate', '--postgres', sslkey.toString()], 7],
        ['demo, missing sslkey', ['demo', '--postgres', sslkey.toString()], 7],
        ['demo, a database it did not make', ['demo', '--postgres', urls(db.location)[form]], 2],
        ['both database options', ['health', '--postgres', urls(db.location)[form], '--sqlite', 'x.db'], 2],
        ['repeated --postgres', ['health', `--postgres=${urls(db.location)[form]}`, '--postgres', unreachable.toString()], 2],
      ];
      for (const [label, args, code] of failures) {
        const run = await runCliBinary(args);
        expect(run.code, `${label}: ${run.stderr}`).toBe(code);
        expect(run.stderr, label).toMatch(/^subagent-context: [^\n]+\n$/);
        expectNoSecret(label, run.stdout, run.stderr);
      }
    });

    it(`secrets in the ${form}, through SUBAGENT_CONTEXT_DB: the proxy's writer holds none in its command line, and the proxy prints none`, async () => {
      const sslkey = new URL(urls(db.location)[form]);
      sslkey.searchParams.set('sslmode', 'require');
      sslkey.searchParams.set('sslkey', `${KEY_DIR}/client.key`);
      for (const [label, url] of [
        ['proxy', urls(db.location)[form]],
        ['proxy, missing sslkey', sslkey.toString()],
      ] as const) {
        const log = join(dir, `proxy-${form}-${label.length}.log`);
        const proxy = spawn(process.execPath, [CLI, 'proxy', '--', 'cat'], {
          env: { ...process.env, ...PROXY_TEST_ENV, SUBAGENT_CONTEXT_DB: url, SUBAGENT_CONTEXT_PROXY_LOG: log },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stderr = '';
        proxy.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
        const closed = new Promise((resolve) => proxy.on('close', resolve));
        proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: SUBAGENT_UPDATE })}\n`);
        // Every local user can read a command line (ps): the writer's must not carry its config.
        const writer = await proxyWriterPid(proxy.pid!);
        expectNoSecret(`${label}: the writer's command line`, readFileSync(`/proc/${writer}/cmdline`, 'utf8'));
        proxy.stdin.end();
        await closed;
        expect(stderr, label).toContain('subagent-context proxy: recording subagents to postgres');
        if (label.endsWith('sslkey')) expect(stderr, label).toContain('ENOENT'); // the driver's message, its path masked
        expectNoSecret(`${label}: stderr`, stderr, existsSync(log) ? readFileSync(log, 'utf8') : '');
      }
    });
  }
});

const SUBAGENT_UPDATE = {
  sessionId: 'acp-secrets',
  update: {
    sessionUpdate: 'tool_call',
    toolCallId: 'toolu_secrets',
    title: 'Task',
    status: 'pending',
    rawInput: {},
    _meta: { claudeCode: { toolName: 'Agent' } },
  },
};
