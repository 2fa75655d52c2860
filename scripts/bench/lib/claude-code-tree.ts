// Synthetic Claude Code transcript trees for the import benchmark (issue 33 item 7): the
// recorded folder (recordings/claude-code/projects: two sessions, eight subagents with their
// sidecars, ~1.4 MB) copied again and again with fresh session, message and request ids, so
// every copy is new sessions and new responses to the importer and to ccusage alike (ccusage
// deduplicates message ids across all files), until the tree reaches its size. Copies go into
// 50 project folders in turn.
//
// Cached under .bench-cache/claude-code-trees/<size>/ (a `projects` folder and a manifest naming
// the generator version): a tree of another version is rebuilt, a half-written one is never
// reused (built under <size>.partial, renamed when complete). Copy k is the same bytes in every
// tree, so a larger tree starts from hard links to the largest smaller one already built and
// writes only the copies it adds. Streaming: the recorded files are held once (the template),
// each copy is written file by file.
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { progressBar } from './progress-bar.js';

/** Bump when the generated content changes: cached trees of another version are rebuilt. */
export const TREE_GENERATOR_VERSION = 'claude-code-tree-v1';

const MIB = 2 ** 20;
/** The trees the benchmark knows, by name: size in MiB. */
export const TREE_SIZES = { '32m': 32, '256m': 256, '512m': 512, '1g': 1024 } as const;
export type TreeSizeName = keyof typeof TREE_SIZES;
const PROJECT_FOLDERS = 50;

const RECORDED = join(import.meta.dirname, '..', '..', '..', 'recordings', 'claude-code', 'projects');

export interface TreeManifest {
  generator: string;
  name: TreeSizeName;
  copies: number;
  /** Bytes of the transcripts (.jsonl) and of every file (sidecars included). */
  transcriptBytes: number;
  bytes: number;
  sessions: number;
  transcripts: number;
}

export interface ClaudeCodeTree extends TreeManifest {
  /** The folder to hand ccusage as CLAUDE_CONFIG_DIR (it reads <it>/projects). */
  configDir: string;
  /** The projects folder (`import claude-code --from`). */
  projectsDir: string;
}

interface TemplateFile {
  /** Path under the recorded project folder. */
  path: string;
  text: string;
}

interface Template {
  project: string;
  sessions: string[];
  files: TemplateFile[];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

function readTemplate(): Template {
  const [project, ...others] = readdirSync(RECORDED);
  if (!project || others.length) throw new Error(`expected one recorded project under ${RECORDED}`);
  const root = join(RECORDED, project);
  const files = filesUnder(root).map((f) => ({ path: relative(root, f), text: readFileSync(f, 'utf8') }));
  const sessions = files.flatMap((f) => (/^[0-9a-f-]{36}\.jsonl$/.test(f.path) ? [f.path.slice(0, 36)] : []));
  return { project, sessions, files };
}

/** Copy k of one recorded file: its path under the tree's projects folder, and its text. */
function copyOf(t: Template, file: TemplateFile, k: number): { path: string; text: string } {
  let { text, path } = file;
  for (const [i, s] of t.sessions.entries()) {
    // Still a UUID: the first 24 characters kept, the last 12 name the copy and the session.
    const fresh = `${s.slice(0, 24)}${k.toString(16).padStart(8, '0')}${i.toString(16).padStart(4, '0')}`;
    text = text.replaceAll(s, fresh);
    path = path.replaceAll(s, fresh);
  }
  // Response and request ids: unique per copy, or ccusage would count each response once in all the tree.
  text = text.replace(/"(msg|req)_([0-9a-f]+)_/g, (_m, kind: string, tag: string) => `"${kind}_${tag}${k.toString(16)}_`);
  return { path: join(`${t.project}-${k % PROJECT_FOLDERS}`, path), text };
}

const manifestPath = (dir: string) => join(dir, 'manifest.json');

function readManifest(dir: string): TreeManifest | null {
  try {
    const m = JSON.parse(readFileSync(manifestPath(dir), 'utf8')) as TreeManifest;
    return m.generator === TREE_GENERATOR_VERSION ? m : null;
  } catch {
    return null;
  }
}

const treeOf = (dir: string, m: TreeManifest): ClaudeCodeTree => ({ ...m, configDir: dir, projectsDir: join(dir, 'projects') });

/** The cached tree `name`, generating it first when absent or of another generator version. */
export function ensureClaudeCodeTree(cacheDir: string, name: TreeSizeName): ClaudeCodeTree {
  const root = join(cacheDir, 'claude-code-trees');
  const dir = join(root, name);
  const cached = readManifest(dir);
  if (cached) return treeOf(dir, cached);
  const partial = `${dir}.partial`;
  rmSync(dir, { recursive: true, force: true });
  rmSync(partial, { recursive: true, force: true });
  const projects = join(partial, 'projects');
  mkdirSync(projects, { recursive: true });

  const t = readTemplate();
  const target = TREE_SIZES[name] * MIB;
  // Start from the largest smaller tree of this version: its copies are this tree's first ones.
  const base = (Object.keys(TREE_SIZES) as TreeSizeName[])
    .filter((n) => TREE_SIZES[n] < TREE_SIZES[name])
    .map((n) => ({ n, m: readManifest(join(root, n)) }))
    .filter((b): b is { n: TreeSizeName; m: TreeManifest } => b.m !== null)
    .at(-1);
  let copies = 0;
  let bytes = 0;
  let transcriptBytes = 0;
  if (base) {
    const from = join(root, base.n, 'projects');
    for (const f of filesUnder(from)) {
      const to = join(projects, relative(from, f));
      mkdirSync(dirname(to), { recursive: true });
      linkSync(f, to);
    }
    ({ copies, bytes, transcriptBytes } = base.m);
  }
  const bar = progressBar(`claude-code tree ${name}`, Math.ceil(target / MIB));
  bar.update(Math.floor(bytes / MIB));
  for (; bytes < target; copies++) {
    for (const file of t.files) {
      const c = copyOf(t, file, copies);
      const to = join(projects, c.path);
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, c.text);
      const size = Buffer.byteLength(c.text);
      bytes += size;
      if (to.endsWith('.jsonl')) transcriptBytes += size;
    }
    bar.update(Math.min(Math.floor(bytes / MIB), Math.ceil(target / MIB)));
  }
  const transcripts = t.files.filter((f) => f.path.endsWith('.jsonl')).length * copies;
  const manifest: TreeManifest = {
    generator: TREE_GENERATOR_VERSION,
    name,
    copies,
    transcriptBytes,
    bytes,
    sessions: t.sessions.length * copies,
    transcripts,
  };
  writeFileSync(manifestPath(partial), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(partial, dir);
  bar.finish(`→ ${dir} (${(bytes / MIB).toFixed(0)} MiB, ${copies} copies${base ? `, ${base.m.copies} linked from ${base.n}` : ''})`);
  return treeOf(dir, manifest);
}

/** Every transcript (.jsonl) of a tree, as the importer finds them (the floor reads these). */
export function transcriptsOf(projectsDir: string): string[] {
  return filesUnder(projectsDir).filter((f) => f.endsWith('.jsonl') && statSync(f).isFile());
}

/** Whether a size name is known. */
export function isTreeSizeName(name: string): name is TreeSizeName {
  return Object.hasOwn(TREE_SIZES, name);
}
