// Claude Code's transcript folder (measured on 2.1.335): $CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects; one folder per working directory (its path, separators as dashes), and in
// it `<sessionId>.jsonl` (the main conversation) and `<sessionId>/subagents/agent-<agentId>.jsonl`
// with a sidecar `agent-<agentId>.meta.json` (agentType, toolUseId, parentAgentId, spawnDepth,
// model, description, finished). Nested subagents sit beside the others. Only names are listed
// here; no file is read.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { object, text } from '../../acp/wire.js';

export interface SubagentFile {
  agentId: string;
  path: string;
  metaPath: string | null;
}

export interface SessionFiles {
  project: string;
  sessionId: string;
  /** null when only the subagents' folder is left. */
  main: string | null;
  subagents: SubagentFile[];
}

export function defaultProjectsDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configDir = env.CLAUDE_CONFIG_DIR;
  return join(configDir ? configDir : join(home, '.claude'), 'projects');
}

const SESSION_FILE = /^(.+)\.jsonl$/;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;

/** The project folders under the projects folder, in a stable order. */
export function listProjects(projectsDir: string): string[] {
  return readdirSync(projectsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Every session of one project folder, in a stable order (session id). One project at a time:
 * the import holds one project's listing, not the whole tree's. */
export function discoverProject(projectsDir: string, project: string): SessionFiles[] {
  const sessions: SessionFiles[] = [];
  const root = join(projectsDir, project);
  const entries = readdirSync(root, { withFileTypes: true });
  const ids = new Set<string>();
  for (const e of entries) {
    const m = e.isFile() ? SESSION_FILE.exec(e.name) : null;
    if (m) ids.add(m[1]);
    else if (e.isDirectory() && existsSync(join(root, e.name, 'subagents'))) ids.add(e.name);
  }
  for (const sessionId of [...ids].sort()) {
    const main = join(root, `${sessionId}.jsonl`);
    const folder = join(root, sessionId, 'subagents');
    const subagents: SubagentFile[] = [];
    if (existsSync(folder) && statSync(folder).isDirectory()) {
      for (const name of readdirSync(folder).sort()) {
        const m = AGENT_FILE.exec(name);
        if (!m) continue;
        const metaPath = join(folder, `agent-${m[1]}.meta.json`);
        subagents.push({ agentId: m[1], path: join(folder, name), metaPath: existsSync(metaPath) ? metaPath : null });
      }
    }
    sessions.push({ project, sessionId, main: existsSync(main) ? main : null, subagents });
  }
  return sessions;
}

export interface SubagentMeta {
  agentType?: string;
  toolUseId?: string;
  parentAgentId?: string;
  spawnDepth?: number;
  model?: string;
  description?: string;
  finished?: boolean;
}

/** The sidecar, or undefined when it is missing, too large to be one, or not JSON. */
export function readMeta(path: string | null): SubagentMeta | undefined {
  if (!path) return undefined;
  try {
    if (statSync(path).size > 64 * 1024) return undefined;
    const m = object(JSON.parse(readFileSync(path, 'utf8')));
    if (!m) return undefined;
    return {
      agentType: text(m.agentType),
      toolUseId: text(m.toolUseId),
      parentAgentId: text(m.parentAgentId),
      spawnDepth: typeof m.spawnDepth === 'number' ? m.spawnDepth : undefined,
      model: text(m.model),
      description: text(m.description),
      finished: m.finished === true,
    };
  } catch {
    return undefined;
  }
}
