// Runs a command inside a fresh loopback-only network namespace (`unshare -n`, as root):
// some agents try to reach the internet at start, and nothing may leave the machine. The
// scripted Messages API and the database servers must then run inside the same namespace, so
// the whole process tree (test runner included) is started in it.
import { spawnSync } from 'node:child_process';

export const NETNS_ENV = 'SUBAGENT_CONTEXT_OFFLINE_NETNS';

export function insideOfflineNamespace(): boolean {
  return process.env[NETNS_ENV] === '1';
}

/** Runs `argv` under `unshare -n` with loopback up; returns its exit status. */
export function runOffline(argv: string[]): number {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${quoted}`], {
    stdio: 'inherit',
    env: { ...process.env, [NETNS_ENV]: '1' },
  });
  if (result.error) throw result.error;
  return result.status ?? 1;
}
