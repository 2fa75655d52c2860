// `report --html FILE` writes the page there and nowhere else, the way careful CLIs write an
// output file:
// - never onto an input: the SQLite file being read, or its -wal, -shm or -journal, compared
//   by device and inode (a hard link or a symbolic link is the same file under another
//   name), and by name for a sidecar SQLite has not created yet;
// - never through a symbolic link at FILE (refused: the link may point anywhere), and never
//   onto something that is not a regular file;
// - never over an existing file unless --force;
// - atomically: the page goes to a new temporary file in the same folder (O_EXCL, so a file
//   planted under that name is never followed), is flushed, then linked (no --force: fails if
//   FILE appeared meanwhile) or renamed (--force) into place, with the permissions of the file
//   it replaces. A reader of FILE sees the old page or the new one, never half of one, and a
//   failure leaves FILE as it was.
// A refusal is a usage error (exit 2); a failure of the disk itself is EXIT.output (73).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError, usageError } from './cli-error.js';
import { EXIT } from './exit-codes.js';

const SQLITE_SIDECARS = ['-wal', '-shm', '-journal'] as const;

export interface HtmlTarget {
  readonly path: string;
  /** Replace an existing regular file. */
  readonly force: boolean;
  /** The SQLite file the report reads, when it reads one. */
  readonly databaseFile?: string;
}

const lstatOrNull = (path: string): Stats | null => {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
};
const statOrNull = (path: string): Stats | null => {
  try {
    return statSync(path);
  } catch {
    return null;
  }
};
const realpathOrNull = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** The database file and its sidecars, each under every name it can have: as given and resolved. */
function databaseFiles(databaseFile: string): { name: string; label: string }[] {
  const spellings = [resolve(databaseFile), realpathOrNull(databaseFile)].filter((p): p is string => p !== null);
  return spellings.flatMap((p) => [
    { name: p, label: 'the database being read' },
    ...SQLITE_SIDECARS.map((s) => ({ name: `${p}${s}`, label: `the database's ${s} file` })),
  ]);
}

/** Why FILE may not be written, or null. Checked before the report runs and again just before the page lands. */
function refusal(target: HtmlTarget): string | null {
  const shown = target.path;
  const existing = lstatOrNull(target.path);
  if (existing?.isSymbolicLink()) return `${shown} is a symbolic link; give the path of a regular file (the link is never followed)`;
  if (existing && !existing.isFile()) return `${shown} is not a regular file`;
  if (target.databaseFile !== undefined) {
    const files = databaseFiles(target.databaseFile);
    if (existing) {
      const same = files.find((f) => {
        const s = statOrNull(f.name);
        return s !== null && s.dev === existing.dev && s.ino === existing.ino;
      });
      if (same) return `${shown} is ${same.label}; the report never writes onto its input`;
    } else {
      const folder = realpathOrNull(dirname(resolve(target.path)));
      const name = folder === null ? null : join(folder, basename(target.path));
      const same = files.find((f) => f.name === name || f.name === resolve(target.path));
      if (same) return `${shown} is ${same.label}; the report never writes onto its input`;
    }
  }
  if (existing && !target.force) return `${shown} already exists; pass --force to replace it`;
  return null;
}

/** Throws a usage error when FILE is a target the report refuses. */
export function checkHtmlTarget(target: HtmlTarget): void {
  const why = refusal(target);
  if (why) throw usageError(`refusing --html: ${why}`);
}

/** A failure of the disk: the system's own words, with the temporary file's name read as the folder's. */
const outputError = (target: HtmlTarget, temporary: string, err: unknown) => {
  const code = (err as { code?: unknown }).code;
  const message = (err instanceof Error ? err.message : String(err)).split(temporary).join(`a new file beside ${target.path}`);
  return new CliError(EXIT.output, `cannot write --html ${target.path}${typeof code === 'string' ? ` (${code})` : ''}: ${message}`, { cause: err });
};

/** Filesystems without hard links answer link() with one of these; rename() is the fallback there. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/** The longest start of `name` that fits in `bytes` bytes of UTF-8, never half a character. */
function prefixOf(name: string, bytes: number): string {
  let prefix = '';
  for (const char of name) {
    if (Buffer.byteLength(prefix + char) > bytes) break;
    prefix += char;
  }
  return prefix;
}

/**
 * The temporary file's name: FILE's first 32 bytes only, so that any name the filesystem
 * takes for FILE (up to 255 bytes) still leaves room for the random part, which alone keeps
 * it unique; at most 50 bytes.
 */
const temporaryName = (path: string) => join(dirname(resolve(path)), `.${prefixOf(basename(path), 32)}.${randomBytes(6).toString('hex')}.tmp`);

/** Gives the new file `mode`; a filesystem that keeps no modes (FAT) refuses, and has none to keep. */
function keepMode(fd: number, mode: number): void {
  try {
    fchmodSync(fd, mode);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !NO_MODES.has(code)) throw err;
  }
}
const NO_MODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Writes `content` to FILE as described above; every failure is a CliError (2 refused, 73 the disk). */
export function writeHtmlFile(target: HtmlTarget, content: string): void {
  checkHtmlTarget(target);
  const temporary = temporaryName(target.path);
  // A file replaced (--force) keeps its permissions: a 0600 page stays private, never 0666 & ~umask.
  const replaced = target.force ? lstatOrNull(target.path) : null;
  let created = false;
  try {
    const fd = openSync(temporary, 'wx', 0o666);
    created = true;
    try {
      if (replaced?.isFile()) keepMode(fd, replaced.mode & 0o777);
      const bytes = Buffer.from(content, 'utf8');
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    checkHtmlTarget(target); // FILE may have changed while the page was written
    if (target.force) renameSync(temporary, target.path);
    else placeWithoutReplacing(temporary, target);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw outputError(target, temporary, err);
  } finally {
    if (created) {
      try {
        unlinkSync(temporary);
      } catch {
        // already renamed into place, or removed with the rest of a failed write
      }
    }
  }
}

/** link() refuses an existing FILE atomically, where rename() would replace it. */
function placeWithoutReplacing(temporary: string, target: HtmlTarget): void {
  try {
    linkSync(temporary, target.path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'EEXIST') throw usageError(`refusing --html: ${target.path} already exists; pass --force to replace it`);
    if (typeof code !== 'string' || !NO_HARD_LINKS.has(code)) throw err;
    checkHtmlTarget(target);
    renameSync(temporary, target.path);
  }
}
