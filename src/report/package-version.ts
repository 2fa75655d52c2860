// The package's own version, for the HTML page's footer ("generated … by subagent-context
// 0.3.0"). Read from the package.json above this module, found by walking up: the module runs
// from src/report/ under tsx and from dist/src/report/ when built, at different depths.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** "0.3.0", or "unknown" when no package.json of this package is found (a bundled copy). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = 'unknown';
  for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; dir = dirname(dir), i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'subagent-context' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // no package.json at this level: keep walking up
    }
  }
  return cached;
}
