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
  // The ACP adapter for Codex and the Codex CLI it runs (`codex app-server`): the adapter asks for
  // @openai/codex ^0.166.0, pinned here exactly; the binary is its optional platform package
  // (@openai/codex-linux-x64), installed by npm from the registry like any other.
  codex: { '@agentclientprotocol/codex-acp': '2.6.0', '@openai/codex': '0.166.0' },
  // Gemini CLI speaks ACP itself (`--acp`); one bundled file, talking to the Gemini API.
  gemini: { '@google/gemini-cli': '0.61.0' },
  // Qwen Code speaks ACP itself (`qwen --acp`); its Anthropic-compatible provider needs nothing more.
  qwen: { '@qwen-code/qwen-code': '0.24.4' },
} as const;

export type AgentName = keyof typeof PINNED_AGENTS;

/**
 * name → npm `overrides` written into the prefix's package.json before the install: a newer
 * dependency than the adapter pins. claude-agent-acp 0.101.0 (the newest) pins the Agent SDK
 * 0.3.318 exactly; 0.3.337 is Claude Code 2.1.337 (the recordings: recordings/acp/claude-*, recordings/claude-code).
 */
export const PINNED_OVERRIDES: Partial<Record<AgentName, Record<string, string>>> = {
  claude: { '@anthropic-ai/claude-agent-sdk': '0.3.337' },
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

export interface AgentOptions {
  /** Codex: its second multi-agent tool set (`multi_agent_v2`, off by default in 0.166). */
  codexMultiAgentV2?: boolean;
  /** Gemini CLI's `--approval-mode`: `yolo` runs every subagent; in `default` Gemini itself refuses all but its read-only agents. */
  approvalMode?: 'yolo' | 'default';
}

/** The command that starts an agent speaking ACP on stdio, offline against `apiUrl`. */
export function agentCommand(name: AgentName, apiUrl: string, home: string, options: AgentOptions = {}): AgentCommand {
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
  if (name === 'codex') return codexCommand(apiUrl, home, base, options.codexMultiAgentV2 === true);
  if (name === 'gemini') return geminiCommand(apiUrl, home, base, options.approvalMode ?? 'yolo');
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

// Codex reads its whole configuration from CODEX_HOME/config.toml: a model provider on the
// scripted Responses API (loopback), keyed by a dummy env var, so no login is asked for; the
// multi-agent tools (spawn_agent, wait_agent, …) switched on explicitly (the `multi_agent`
// feature, stable and on by default in 0.166; `multi_agent_v2` on request); no approvals (subagents and their commands run
// unattended) and no sandbox (bwrap needs namespaces a test container may not grant); no
// update check, analytics or feedback upload.
function codexCommand(apiUrl: string, home: string, base: NodeJS.ProcessEnv, multiAgentV2: boolean): AgentCommand {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-scripted"',
      'model_provider = "scripted"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.scripted]',
      'name = "Scripted"',
      `base_url = "${apiUrl}/v1"`,
      'env_key = "SCRIPTED_OPENAI_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[features]',
      'multi_agent = true',
      `multi_agent_v2 = ${multiAgentV2}`,
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  return {
    name: 'codex',
    command: process.execPath,
    args: [join(AGENTS_CACHE, 'codex', 'node_modules', '@agentclientprotocol', 'codex-acp', 'dist', 'index.js')],
    env: {
      ...base,
      CODEX_HOME: codexHome,
      SCRIPTED_OPENAI_API_KEY: 'sk-offline-dummy',
      MODEL_PROVIDER: 'scripted',
      INITIAL_AGENT_MODE: 'agent-full-access',
      NO_BROWSER: '1',
    },
  };
}

// Gemini CLI against the scripted Gemini API (test/agents/fake-gemini-api.ts): GOOGLE_GEMINI_BASE_URL
// selects its "gateway" auth type, so a dummy key is enough; its settings file in the fresh HOME
// turns off telemetry, usage statistics, update checks and IDE integration, and names a model
// (the default `auto` would ask a router model first); its trustedFolders.json trusts the HOME
// the session runs in, as a user does once (in an untrusted folder Gemini falls back to the
// default approval mode whatever `--approval-mode` says). GEMINI_CLI_NO_RELAUNCH keeps it one
// process (it otherwise re-spawns itself with a larger heap).
function geminiCommand(apiUrl: string, home: string, base: NodeJS.ProcessEnv, approvalMode: 'yolo' | 'default'): AgentCommand {
  const settings = {
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, checkpointing: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false },
    model: { name: 'gemini-2.5-flash' },
  };
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [home]: 'TRUST_FOLDER' }, null, 2));
  return {
    name: 'gemini',
    command: process.execPath,
    args: [join(AGENTS_CACHE, 'gemini', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'), '--acp', '--approval-mode', approvalMode],
    env: { ...base, GOOGLE_GEMINI_BASE_URL: apiUrl, GEMINI_API_KEY: 'offline-dummy', GEMINI_CLI_NO_RELAUNCH: 'true' },
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
