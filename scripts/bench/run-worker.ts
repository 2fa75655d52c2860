// Runs one bench worker script (a .ts file beside this one) in a child process of its own, so
// its peak RSS is that run's alone, and returns the JSON object it prints as its last stdout
// line. A worker run only to prepare (`returnsNothing`) prints none.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export function runWorker<T>(script: string, args: readonly string[], options: { returnsNothing?: boolean } = {}): Promise<T | null> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: resolve(here, '..', '..'),
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && options.returnsNothing) return resolvePromise(null);
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`${script} exited with ${code}: ${out}`));
      resolvePromise(JSON.parse(line) as T);
    });
  });
}
