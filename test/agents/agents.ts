// The real agents the ACP intake is proven against, pinned exactly. They are hundreds of MB,
// so they are not devDependencies: scripts/install-agents.ts installs them on demand into
// .agents-cache/ (gitignored) with `npm install --prefix`, before the run enters its
// loopback-only network namespace. Nothing here installs anything: an agent that is missing
// makes the run FAIL (agentCommand throws), never skip.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentCommand } from './run-agent.js';

export const AGENTS_CACHE = join(import.meta.dirname, '..', '..', '.agents-cache');

/** name → the packages `npm install --prefix .agents-cache/<name>` installs, exact versions. */
export const PINNED_AGENTS = {
  // The adapter Kandev launches; it pulls Claude Code (@anthropic-ai/claude-agent-sdk and its binary).
  claude: { '@agentclientprotocol/claude-agent-acp': '0.101.0' },
  // OpenCode, plus the AI SDK provider its config names, so it never installs one at run time.
  opencode: { 'opencode-ai': '1.18.33', '@ai-sdk/anthropic': '4.0.105' },
  // Qwen Code speaks ACP itself (`qwen --acp`); its Anthropic-compatible provider needs nothing more.
  qwen: { '@qwen-code/qwen-code': '0.24.4' },
} as const;

export type AgentName = keyof typeof PINNED_AGENTS;

/** The packages of an agent that are not installed at their pinned version. */
export function missingPackages(name: AgentName): string[] {
  const missing: string[] = [];
  for (const [pkg, version] of Object.entries(PINNED_AGENTS[name])) {
    const manifest = join(AGENTS_CACHE, name, 'node_modules', pkg, 'package.json');
    const installed = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
    if (installed !== version) missing.push(`${pkg}@${version}`);
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
  if (name === 'qwen') return qwenCommand(apiUrl, home, base);
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

// Qwen Code: `qwen --acp`, its Anthropic-compatible provider (`security.auth.selectedType:
// "anthropic"`, ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY/ANTHROPIC_MODEL) pointed at the scripted
// Messages API, from a settings file in the fresh HOME; telemetry, usage statistics and the
// update check off; `--approval-mode yolo` so the agent tool and the subagents' tools run
// without a permission round trip.
function qwenCommand(apiUrl: string, home: string, base: NodeJS.ProcessEnv): AgentCommand {
  const settings = {
    security: { auth: { selectedType: 'anthropic' } },
    model: { name: 'claude-scripted' },
    general: { enableAutoUpdate: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify(settings, null, 2));
  return {
    name: 'qwen',
    command: process.execPath,
    args: [join(AGENTS_CACHE, 'qwen', 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js'), '--acp', '--approval-mode', 'yolo'],
    env: {
      ...base,
      ANTHROPIC_BASE_URL: apiUrl,
      ANTHROPIC_API_KEY: 'sk-ant-offline-dummy',
      ANTHROPIC_MODEL: 'claude-scripted',
      QWEN_TELEMETRY_ENABLED: 'false',
    },
  };
}
