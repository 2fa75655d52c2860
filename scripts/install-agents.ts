// Installs the pinned real agents (test/agents/agents.ts) into .agents-cache/ when they are
// missing, with `npm install --prefix`: they are hundreds of MB and only `npm run test:agents`
// and scripts/record-acp-fixtures.ts need them. Needs the registry, so it runs before the
// loopback-only namespace. Exits non-zero when an install fails: CI must fail, not skip.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AGENTS_CACHE, missingPackages, PINNED_AGENTS, type AgentName } from '../test/agents/agents.js';

for (const name of Object.keys(PINNED_AGENTS) as AgentName[]) {
  const missing = missingPackages(name);
  if (!missing.length) {
    console.log(`${name}: installed`);
    continue;
  }
  const prefix = join(AGENTS_CACHE, name);
  mkdirSync(prefix, { recursive: true });
  console.log(`${name}: npm install --prefix ${prefix} ${missing.join(' ')}`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', ...missing], { stdio: 'inherit' });
  const still = missingPackages(name);
  if (still.length) throw new Error(`${name}: still missing after install: ${still.join(', ')}`);
}
