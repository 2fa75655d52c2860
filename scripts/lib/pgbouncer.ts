// Starts Debian's PgBouncer (apt-get install pgbouncer; .ci/run installs it when missing) in
// front of a running PostgreSQL, the way most production hosts reach their database:
// transaction pooling, a small server pool, and no `max_prepared_statements` (1.18, the
// version Debian 12 ships, has no protocol-level prepared-statement support at all). Any
// database name is forwarded to the same server, so each test's own database is reachable
// through it. As root it runs as `nobody`, like the PostgreSQL the tests start.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export const PGBOUNCER_BINARY = process.env.SUBAGENT_CONTEXT_TEST_PGBOUNCER ?? '/usr/sbin/pgbouncer';

export interface RunningPgBouncer {
  readonly port: number;
  /** `pgbouncer --version`'s first line. */
  readonly version: string;
  /** The same URL with host and port replaced by the pooler's. */
  route(serverUrl: string): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL to pool, as host, port, user and password. */
  readonly server: { host: string; port: number; user: string; password: string };
  /** Server connections per (database, user) pair: small, so clients really share them. */
  readonly poolSize?: number;
}

const NOBODY = { uid: 65534, gid: 65534 };

function waitForListening(child: ChildProcess, log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log.push(chunk.toString('utf8'));
      if (/listening on/i.test(log.join(''))) {
        child.stderr?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`pgbouncer exited early (code ${code}):\n${log.join('')}`)));
  });
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<RunningPgBouncer> {
  if (!existsSync(PGBOUNCER_BINARY)) {
    throw new Error(`${PGBOUNCER_BINARY} not found: install Debian's pgbouncer (apt-get install pgbouncer; .ci/run does this)`);
  }
  const runAs = userInfo().uid === 0 ? NOBODY : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'subagent-context-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const { host, user, password } = options.server;
  const ini = join(dir, 'pgbouncer.ini');
  const users = join(dir, 'userlist.txt');
  writeFileSync(
    ini,
    [
      '[databases]',
      // Wildcard: every database name goes to the same server, with these credentials.
      `* = host=${host} port=${options.server.port} user=${user} password=${password}`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      // Clients authenticate to the pooler by name only; the pooler authenticates to the server.
      `auth_type = trust`,
      `auth_file = ${users}`,
      `pool_mode = transaction`,
      `default_pool_size = ${options.poolSize ?? 4}`,
      `max_client_conn = 2000`,
      // Tests create and drop a database per test; idle server connections to a dropped
      // database must not linger, nor a dropped one be reused.
      `server_reset_query =`,
      `server_check_delay = 0`,
      `ignore_startup_parameters = extra_float_digits,options`,
      `admin_users = ${user}`,
      '',
    ].join('\n'),
  );
  writeFileSync(users, `"${user}" ""\n`);
  if (runAs) for (const f of [dir, ini, users]) chownSync(f, runAs.uid, runAs.gid);

  const child = spawn(PGBOUNCER_BINARY, [ini], { ...runAs, stdio: ['ignore', 'ignore', 'pipe'] });
  const log: string[] = [];
  await waitForListening(child, log);
  const version = (spawnSync(PGBOUNCER_BINARY, ['--version'], { encoding: 'utf8' }).stdout ?? '').split('\n')[0].trim();

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => {
    if (!stopped && child.exitCode === null) child.kill('SIGKILL');
  });
  const route = (serverUrl: string) => {
    const url = new URL(serverUrl);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.toString();
  };
  return { port, version, route, stop };
}
