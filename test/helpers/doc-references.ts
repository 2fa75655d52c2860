// What a user-facing document (README.md, a shipped docs/*.md) points at, checked against the
// files the packed tarball holds: every relative link (and its #anchor, when it names a heading
// of a Markdown file), every path written out in the text, every root document named, and the
// words that only make sense inside this repository. Pure: the caller reads the documents and
// lists the tarball, so a test can also feed it a bad document and see it fail.
import { posix } from 'node:path';

export interface Doc {
  /** Package-relative path: `README.md`, `docs/health.md`. */
  readonly path: string;
  readonly text: string;
}

/** Top-level folders a document may name as a path; a path into one is resolved from the package root. */
const ROOTS = ['src', 'test', 'scripts', 'generated', 'shared', 'dist', 'docs', 'schema', 'queries', '.ci', '.agents-cache'];
/** A path written out: a root folder, a slash, then path characters (`<dialect>` and `*` as placeholders). Not a
 * continuation of a longer token (`../schema/…` is a link, resolved as one; `node_modules/.bin/…` is not ours). */
const WRITTEN_PATH = new RegExp(`(?<![\\w./~$@-])(?:${ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\\w./<>*-]*`, 'g');
/** A root document named in the text: README.md, CHANGELOG.md, BENCHMARKS.md, DESIGN.md … */
const ROOT_DOC = /(?<![\w./-])[A-Z][A-Z_]+\.md\b/g;
const LINK = /\]\(([^)\s]+)\)/g;
/** A test file named without its folder: tests never ship. */
const TEST_FILE = /(?<![\w/.-])[\w.-]+\.test\.[cm]?[jt]s\b/g;
/** Phrases that name what only the repository (or its authors) have. */
const REPOSITORY_ONLY: readonly RegExp[] = [/\bGo reference\b/i, /\bDESIGN(?:\.md| §)/, /shared\/spec/, /the team's DESIGN/i];
const SPEC_CODE = /\bAC-\d/;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** True when `target` (package-relative, maybe with `<placeholder>`s and `*`) is a packed file or a folder holding one. */
function resolves(target: string, files: readonly string[]): boolean {
  const clean = target.replace(/^\.\//, '').replace(/[.,;:]+$/, '');
  const pattern = clean
    .replace(/\/$/, '')
    .split(/(<[^>]+>|\*)/)
    .map((part) => (part === '*' ? '[^/]*' : /^<[^>]+>$/.test(part) ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${pattern}(?:/.*)?$`);
  return files.some((f) => re.test(f));
}

/** Every problem in one document, as `file: what` lines (empty when it is clean). */
export function documentProblems(doc: Doc, files: readonly string[], readDoc: (path: string) => string | undefined, allowSpecCodes = false): string[] {
  const problems: string[] = [];
  const dir = posix.dirname(doc.path);
  for (const [, raw] of doc.text.matchAll(LINK)) {
    if (/^[a-z][a-z+.-]*:/i.test(raw)) continue; // https:, mailto:
    const [pathPart, anchor] = raw.split('#', 2);
    const target = pathPart === '' ? doc.path : posix.normalize(posix.join(dir, pathPart));
    if (target.startsWith('../')) {
      problems.push(`${doc.path}: link ${raw} leaves the package`);
      continue;
    }
    if (!resolves(target, files)) {
      problems.push(`${doc.path}: link ${raw} → ${target}, not in the package`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md')) {
      const text = target === doc.path ? doc.text : readDoc(target);
      if (text !== undefined && !headingAnchors(text).has(anchor)) problems.push(`${doc.path}: link ${raw}: ${target} has no heading #${anchor}`);
    }
  }
  const prose = doc.text.replace(LINK, ']()'); // a link's target is checked above, as a link
  for (const [path] of prose.matchAll(WRITTEN_PATH)) {
    if (!resolves(path, files)) problems.push(`${doc.path}: names ${path}, not in the package`);
  }
  for (const [name] of prose.matchAll(TEST_FILE)) problems.push(`${doc.path}: names the test ${name}, which the package does not ship`);
  for (const [name] of doc.text.matchAll(ROOT_DOC)) {
    if (!files.includes(name)) problems.push(`${doc.path}: names ${name}, not in the package`);
  }
  for (const phrase of REPOSITORY_ONLY) {
    const m = phrase.exec(doc.text);
    if (m) problems.push(`${doc.path}: says "${m[0]}", which only the repository has`);
  }
  if (!allowSpecCodes) {
    doc.text.split('\n').forEach((line, i) => {
      if (SPEC_CODE.test(line)) problems.push(`${doc.path}:${i + 1}: cites a spec criterion (only docs/spec-map.md may): ${line.trim().slice(0, 100)}`);
    });
  }
  return problems;
}
