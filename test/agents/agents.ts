// The real agents the ACP intake is proven against, pinned exactly. They are hundreds of MB,
// so they are not devDependencies: scripts/install-agents.ts installs them on demand into
// .agents-cache/ (gitignored) with `npm install --prefix`, before the run enters its
// loopback-only network namespace. Nothing here installs anything: an agent that is missing
// makes the run FAIL (agentCommand throws), never skip.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentCommand } from './run-agent.js';

export const AGENTS_CACHE = join(import.meta.dirname, '..', '..', '.agents-cache');

/** name → the packages `npm install --prefix .agents-cache/<name>` installs, exact versions. */
export const PINNED_AGENTS = {
  // The adapter Kandev launches; it pulls Claude Code (@anthropic-ai/claude-agent-sdk and its binary).
  claude: { '@agentclientprotocol/claude-agent-acp': '0.101.0' },
  // OpenCode, plus the AI SDK provider its config names, so it never installs one at run time.
  opencode: { 'opencode-ai': '1.18.33', '@ai-sdk/anthropic': '4.0.105' },
} as const;

export type AgentName = keyof typeof PINNED_AGENTS;

/**
 * name → npm `overrides` written into the prefix's package.json before the install: a newer
 * dependency than the adapter pins. claude-agent-acp 0.101.0 (the newest) pins the Agent SDK
 * 0.3.318 exactly; 0.3.335 is Claude Code 2.1.335.
 */
export const PINNED_OVERRIDES: Partial<Record<AgentName, Record<string, string>>> = {
  claude: { '@anthropic-ai/claude-agent-sdk': '0.3.335' },
};

function installedVersion(manifest: string): string | undefined {
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
}

/** The packages of an agent that are not installed at their pinned version. */
export function missingPackages(name: AgentName): string[] {
  const missing: string[] = [];
  const modules = join(AGENTS_CACHE, name, 'node_modules');
  for (const [pkg, version] of Object.entries(PINNED_AGENTS[name])) {
    if (installedVersion(join(modules, pkg, 'package.json')) !== version) missing.push(`${pkg}@${version}`);
  }
  // An override counts as installed when every pinned package resolves it (its own nested
  // copy first, as Node does) at the overriding version.
  for (const [pkg, version] of Object.entries(PINNED_OVERRIDES[name] ?? {})) {
    const resolved = Object.keys(PINNED_AGENTS[name]).map(
      (from) => installedVersion(join(modules, from, 'node_modules', pkg, 'package.json')) ?? installedVersion(join(modules, pkg, 'package.json')),
    );
    if (resolved.some((v) => v !== version)) missing.push(`${pkg}@${version} (override)`);
  }
  return missing;
}

/** The command that starts an agent speaking ACP on stdio, offline against `apiUrl`. */
export function agentCommand(name: AgentName, apiUrl: string, home: string): AgentCommand {
  const missing = missingPackages(name);
  if (missing.length) throw new Error(`${name}: not installed (${missing.join(', ')}); run \`tsx scripts/install-agents.ts\` first`);
  const base = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), TMPDIR: home };
  if (name === 'claude') {
    return {
      name,
      command: process.execPath,
      args: [join(AGENTS_CACHE, 'claude', 'node_modules', '@agentclientprotocol', 'claude-agent-acp', 'dist', 'index.js')],
      env: {
        ...base,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: apiUrl,
        ANTHROPIC_API_KEY: 'sk-ant-offline-dummy',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    };
  }
  const config = {
    $schema: 'https://opencode.ai/config.json',
    model: 'scripted/claude-scripted',
    provider: {
      scripted: {
        npm: '@ai-sdk/anthropic',
        name: 'Scripted',
        options: { baseURL: `${apiUrl}/v1`, apiKey: 'offline-dummy' },
        models: { 'claude-scripted': { name: 'Claude (scripted)', tool_call: true } },
      },
    },
  };
  return {
    name,
    command: join(AGENTS_CACHE, 'opencode', 'node_modules', '.bin', 'opencode'),
    args: ['acp'],
    env: {
      ...base,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS: '1',
    },
  };
}
