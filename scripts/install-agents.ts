// Installs the pinned real agents (test/agents/agents.ts) into .agents-cache/ when they are
// missing, with `npm install --prefix`: they are hundreds of MB and only `npm run test:agents`
// and scripts/record-acp-fixtures.ts need them. Needs the registry, so it runs before the
// loopback-only namespace. Exits non-zero when an install fails: CI must fail, not skip.
// An agent with PINNED_OVERRIDES gets them in its prefix's package.json first, so npm
// resolves the adapter's own dependency at the newer version.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_CACHE, missingPackages, PINNED_AGENTS, PINNED_OVERRIDES, type AgentName } from '../test/agents/agents.js';

for (const name of Object.keys(PINNED_AGENTS) as AgentName[]) {
  const missing = missingPackages(name);
  if (!missing.length) {
    console.log(`${name}: installed`);
    continue;
  }
  const prefix = join(AGENTS_CACHE, name);
  mkdirSync(prefix, { recursive: true });
  const overrides = PINNED_OVERRIDES[name];
  if (overrides) {
    const manifestPath = join(prefix, 'package.json');
    const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>) : { private: true };
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, overrides }, null, 2) + '\n');
  }
  // Every pinned package, not only the missing ones: a changed override must re-resolve the tree.
  const packages = Object.entries(PINNED_AGENTS[name]).map(([pkg, version]) => `${pkg}@${version}`);
  console.log(`${name}: missing ${missing.join(', ')}; npm install --prefix ${prefix} ${packages.join(' ')}`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', ...packages], { stdio: 'inherit' });
  const still = missingPackages(name);
  if (still.length) throw new Error(`${name}: still missing after install: ${still.join(', ')}`);
}
