// Runs the real Claude Code (through its ACP adapter, which starts the CLI) offline against the
// scripted Messages API, in a fresh HOME whose CLAUDE_CONFIG_DIR is HOME/.claude, and leaves the
// transcripts it writes there (projects/<project>/<sessionId>.jsonl and
// <sessionId>/subagents/agent-<id>.jsonl + .meta.json) for scripts/record-claude-transcripts.ts
// to keep under recordings/claude-code/. Two sessions in one project folder:
// - `review`: three parallel reviewers (one reads a file first, one launches a nested subagent)
//   and a background audit, then a second prompt that launches one more subagent;
// - `pair`: a later session with two parallel reviewers.
// The API's usage differs on every response (varyingUsage), streamed as the real API does.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentCommand } from './agents.js';
import { FOLLOW_UP_MARKER, NESTED_MARKER, READ_MARKER, SCRIPT_MARKER, startFakeMessagesApi, type ScriptedLaunch } from './fake-messages-api.js';
import { runAgent } from './run-agent.js';

/** A fixed working directory, so the project folder's name (its path, slashes as dashes) is the same on every recording. */
export const RECORDING_CWD = '/tmp/subagent-context-claude-recording';

interface TranscriptSession {
  name: string;
  launches: ScriptedLaunch[];
  followUps: string[];
}

const SESSIONS: TranscriptSession[] = [
  {
    name: 'review',
    launches: [
      { description: 'Review security', prompt: `${READ_MARKER} Review the change for security issues.` },
      { description: 'Review performance', prompt: 'Review the change for performance.' },
      { description: 'Review style', prompt: `${NESTED_MARKER} Review the change for style.` },
      { description: 'Background audit', prompt: 'Audit the dependencies.', background: true },
    ],
    followUps: [`${FOLLOW_UP_MARKER}: one more check, please.`],
  },
  {
    name: 'pair',
    launches: [
      { description: 'Review tests', prompt: 'Review the tests.' },
      { description: 'Review docs', prompt: 'Review the docs.' },
    ],
    followUps: [],
  },
];

/** Total size and newest mtime of every file under dir: unchanged for a while = the agent is done writing. */
function fingerprint(dir: string): string {
  let size = 0;
  let newest = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        size += s.size;
        newest = Math.max(newest, s.mtimeMs);
      }
    }
  };
  try {
    walk(dir);
  } catch {
    return 'absent';
  }
  return `${size}:${newest}`;
}

/** Waits until nothing under dir changed for quietMs (background subagents finish after the turn), at most maxMs. */
async function settle(dir: string, quietMs = 4_000, maxMs = 60_000): Promise<void> {
  const start = Date.now();
  let last = fingerprint(dir);
  let since = Date.now();
  while (Date.now() - start < maxMs) {
    await sleep(250);
    const now = fingerprint(dir);
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= quietMs) return;
  }
}

/** Runs every session; returns the HOME whose .claude/projects holds the transcripts (the caller removes it). */
export async function recordClaudeTranscripts(): Promise<{ home: string; projects: string; sessions: string[] }> {
  rmSync(RECORDING_CWD, { recursive: true, force: true });
  const home = RECORDING_CWD;
  mkdirSync(home, { recursive: true });
  const workFile = join(home, 'NOTES.md');
  writeFileSync(workFile, '# notes\nnothing to see\n');
  const projects = join(home, '.claude', 'projects');
  const sessions: string[] = [];
  for (const session of SESSIONS) {
    const api = await startFakeMessagesApi(session.launches, workFile, { varyingUsage: true });
    try {
      const run = await runAgent({
        agent: agentCommand('claude', api.url, home),
        cwd: home,
        prompt: `${SCRIPT_MARKER}: review this change with the reviewers.`,
        followUps: session.followUps,
        onUpdate: () => {},
        beforeEnd: () => settle(projects),
        timeoutMs: 180_000,
      });
      sessions.push(run.acpSessionId);
      console.log(`${session.name}: session ${run.acpSessionId}, ${api.requests.length} API requests`);
    } finally {
      await api.close();
    }
  }
  return { home, projects, sessions };
}
