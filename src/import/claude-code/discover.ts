// Claude Code's transcript folder (measured on 2.1.335): $CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects; one folder per working directory (its path, separators as dashes), and in
// it `<sessionId>.jsonl` (the main conversation) and `<sessionId>/subagents/agent-<agentId>.jsonl`
// with a sidecar `agent-<agentId>.meta.json` (agentType, toolUseId, parentAgentId, spawnDepth,
// model, description, finished: not read, see import-claude-code.ts). Nested subagents sit beside the others. Only names are listed
// here; no file is read. Symbolic links are never followed, and an entry that cannot be listed
// is left out (SkipEntry): Claude Code writes neither, so either is someone else's doing.
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { object, text } from '../../acp/wire.js';
import { recordableId } from '../../identity.js';

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
  /** Transcripts of Claude Code's own helper agents in the subagents' folder (HELPER_AGENT_FILE): counted, never read. */
  helpers: number;
  /** Transcripts in folders below the subagents' folder (UNREAD_DEPTH): counted, never read; the first one's path, for the WARN. */
  unread: number;
  firstUnread: string | null;
}

/**
 * Told of each entry the import leaves out, with why: a symbolic link, or a file or folder that
 * cannot be listed or stat'ed. One such entry costs only itself, never the import (the caller
 * WARNs and counts it).
 */
export type SkipEntry = (path: string, why: string) => void;

const ignore: SkipEntry = () => {};

export const SYMLINK_SKIPPED = 'a symbolic link: never followed';

/** An fs error as a WARN's reason. */
export function failureOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function defaultProjectsDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configDir = env.CLAUDE_CONFIG_DIR;
  return join(configDir ? configDir : join(home, '.claude'), 'projects');
}

const SESSION_FILE = /^(.+)\.jsonl$/;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;
/**
 * Claude Code's own helper agents write their runs beside the subagents': `agent-acompact-<hex>`
 * (compaction), `agent-aprompt_suggestion-<hex>`, `agent-aside_question-<hex>` (as parsers of
 * the folder list them; none was recorded here: 2.1.335 through the Agent SDK wrote none on
 * `/compact`). No tool call launches them, so no row is theirs; and their lines repeat the
 * conversation they fork (a compaction's, all of it), so reading their usage would count the
 * session's responses twice, and nothing recorded here tells the helper's own response apart.
 * A launched subagent's id is `a` and hex digits alone (16 on 2.1.335, 6 on older versions).
 */
const HELPER_AGENT_FILE = /^agent-a[a-z][a-z_]*-[0-9a-f]+\.jsonl$/;
/**
 * Transcripts in folders below a session's `subagents` folder are not read. Claude Code's
 * `Workflow` tool (2026) writes the agents of a run in `subagents/workflows/wf_<run>/agent-<id>.jsonl`
 * (as parsers of the folder describe it, captured on 2.1.170; none recorded here): one `Workflow`
 * call launches the whole fleet, so no tool call of the transcript is any one agent's launch and
 * no row can be theirs. They are counted and WARNed about (their usage is not in the ledger), not
 * read; any other folder there is counted alike, so a layout the import does not know is never
 * passed over in silence. The walk goes this many folders deep, no further.
 */
const UNREAD_DEPTH = 4;

/** A folder's entries by name (the WARNs come in a stable order); none when it cannot be listed (a permission, a folder deleted meanwhile): skipped, the rest goes on. */
function entriesOf(folder: string, skip: SkipEntry): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    skip(folder, failureOf(err));
    return [];
  }
}

/** Symbolic links are skipped everywhere: the import reads only what lies under the projects folder, and a link may point anywhere, or nowhere. */
function skippedLink(e: Dirent, folder: string, skip: SkipEntry): boolean {
  if (!e.isSymbolicLink()) return false;
  skip(join(folder, e.name), SYMLINK_SKIPPED);
  return true;
}

/** The project folders under the projects folder, in a stable order. */
export function listProjects(projectsDir: string, skip: SkipEntry = ignore): string[] {
  return entriesOf(projectsDir, skip)
    .filter((e) => !skippedLink(e, projectsDir, skip) && e.isDirectory())
    .map((e) => e.name);
}

/** Every session of one project folder, in a stable order (session id). One project at a time:
 * the import holds one project's listing, not the whole tree's. */
export function discoverProject(projectsDir: string, project: string, skip: SkipEntry = ignore): SessionFiles[] {
  const root = join(projectsDir, project);
  const mains = new Set<string>();
  const subagents = new Map<string, Omit<SessionFiles, 'project' | 'sessionId' | 'main'>>();
  for (const e of entriesOf(root, skip)) {
    if (skippedLink(e, root, skip)) continue;
    const m = e.isFile() ? SESSION_FILE.exec(e.name) : null;
    if (m) mains.add(m[1]);
    else if (e.isDirectory()) {
      const found = subagentsOf(join(root, e.name, 'subagents'), skip);
      if (found) subagents.set(e.name, found);
    }
  }
  return [...new Set([...mains, ...subagents.keys()])].sort().map((sessionId) => ({
    project,
    sessionId,
    main: mains.has(sessionId) ? join(root, `${sessionId}.jsonl`) : null,
    subagents: subagents.get(sessionId)?.subagents ?? [],
    helpers: subagents.get(sessionId)?.helpers ?? 0,
    unread: subagents.get(sessionId)?.unread ?? 0,
    firstUnread: subagents.get(sessionId)?.firstUnread ?? null,
  }));
}

/** A session folder's subagent transcripts, with their sidecars, and how many of its transcripts are helper agents' or in its subfolders; null when it has no subagents folder (not a session's) or it is skipped. */
function subagentsOf(folder: string, skip: SkipEntry): Omit<SessionFiles, 'project' | 'sessionId' | 'main'> | null {
  try {
    const kind = lstatSync(folder);
    if (kind.isSymbolicLink()) skip(folder, SYMLINK_SKIPPED);
    if (!kind.isDirectory()) return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skip(folder, failureOf(err));
    return null;
  }
  const entries = entriesOf(folder, skip).filter((e) => !skippedLink(e, folder, skip));
  const files = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  const unread = { count: 0, first: null as string | null };
  for (const e of entries) if (e.isDirectory()) countTranscripts(join(folder, e.name), 1, skip, unread);
  let helpers = 0;
  const subagents = [...files].flatMap((name) => {
    const m = AGENT_FILE.exec(name);
    if (!m) return [];
    if (HELPER_AGENT_FILE.test(name)) {
      helpers++;
      return [];
    }
    const meta = `agent-${m[1]}.meta.json`;
    return [{ agentId: m[1], path: join(folder, name), metaPath: files.has(meta) ? join(folder, meta) : null }];
  });
  return { subagents, helpers, unread: unread.count, firstUnread: unread.first };
}

/** Counts the agent transcripts (`agent-<id>.jsonl`; a run's `journal.jsonl` is none) of a folder below the subagents' folder and of its own folders, UNREAD_DEPTH deep at most (links skipped, as everywhere). */
function countTranscripts(folder: string, depth: number, skip: SkipEntry, into: { count: number; first: string | null }): void {
  for (const e of entriesOf(folder, skip)) {
    if (skippedLink(e, folder, skip)) continue;
    if (e.isFile() && AGENT_FILE.test(e.name)) {
      into.count++;
      into.first ??= join(folder, e.name);
    } else if (e.isDirectory() && depth < UNREAD_DEPTH) countTranscripts(join(folder, e.name), depth + 1, skip, into);
  }
}

export interface SubagentMeta {
  agentType?: string;
  toolUseId?: string;
  parentAgentId?: string;
  spawnDepth?: number;
  model?: string;
  description?: string;
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
      // An id no row can have (a NUL, over 512 bytes) is no link to a launch: read as no sidecar's.
      toolUseId: recordableId(m.toolUseId) ?? undefined,
      parentAgentId: text(m.parentAgentId),
      spawnDepth: typeof m.spawnDepth === 'number' ? m.spawnDepth : undefined,
      model: text(m.model),
      description: text(m.description),
    };
  } catch {
    return undefined;
  }
}
