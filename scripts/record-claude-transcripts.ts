// Re-records recordings/claude-code/: the transcript folder the real Claude Code writes
// (~/.claude/projects, here under a fresh HOME's CLAUDE_CONFIG_DIR), from the scripted sessions
// of test/agents/claude-transcripts.ts, run offline in a loopback-only network namespace. The
// files are kept as Claude Code wrote them (the importer and ccusage are tested on them);
// nothing secret is in them (the API key is a dummy, the prompts are the script's).
// Usage: tsx scripts/record-claude-transcripts.ts
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingPackages, PINNED_AGENTS, PINNED_OVERRIDES } from '../test/agents/agents.js';
import { recordClaudeTranscripts } from '../test/agents/claude-transcripts.js';
import { insideOfflineNamespace, runOffline } from '../test/agents/netns.js';

const TARGET = join(import.meta.dirname, '..', 'recordings', 'claude-code');

if (!insideOfflineNamespace()) {
  // Only Claude Code is needed; scripts/install-agents.ts installs it (and the other agents).
  const missing = missingPackages('claude');
  if (missing.length) throw new Error(`claude: not installed (${missing.join(', ')}); run \`tsx scripts/install-agents.ts\` first`);
  process.exit(runOffline([process.execPath, '--import', 'tsx', import.meta.filename]));
}

const { home, projects, sessions } = await recordClaudeTranscripts();
try {
  rmSync(join(TARGET, 'projects'), { recursive: true, force: true });
  cpSync(projects, join(TARGET, 'projects'), { recursive: true });
  const meta = { agent: 'claude', packages: { ...PINNED_AGENTS.claude, ...PINNED_OVERRIDES.claude }, sessions, recorded_at: new Date().toISOString() };
  writeFileSync(join(TARGET, 'recording.meta.json'), JSON.stringify(meta, null, 2) + '\n');
  console.log(`kept ${projects} as ${join(TARGET, 'projects')}`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
