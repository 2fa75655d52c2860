// The package's own version, for `subagent-context --version` and the HTML page's footer
// ("generated … by subagent-context 0.3.0"). Read from this package's package.json, found by
// walking up from this module (src/ under tsx, dist/src/ when built or installed), so it can
// never disagree with what npm installed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null | undefined;

/** "0.3.0", or null when no package.json of this package is above this module (a bundled copy). */
export function packageVersion(): string | null {
  if (cached !== undefined) return cached;
  cached = null;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'subagent-context' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // no package.json at this level (or not JSON): keep walking up
    }
    if (dirname(dir) === dir) return cached;
  }
}
