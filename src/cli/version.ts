// `subagent-context --version`: the version of the package this CLI was installed from, read
// from its own package.json (found upwards from this module: src/cli/ when run from source,
// dist/src/cli/ when installed), so it can never disagree with what npm installed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
      if (name === 'subagent-context' && typeof version === 'string') return version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('subagent-context: cannot find its own package.json');
    dir = parent;
  }
}
