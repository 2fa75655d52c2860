// Whether the demo may write `--sqlite FILE`, decided without touching it. The demo writes
// only into a file it made (marked with PRAGMA application_id; it is replaced), a file that
// does not exist, or one that holds no schema object at all (used in place). Its own file with
// a non-empty -wal (a run cut short by Ctrl-C, or one still open) is refused too, but named
// as the demo's leftovers, with the command that removes them. Anything else is
// someone's database and is refused (DemoRefusal) with every byte of FILE, FILE-wal and
// FILE-shm as it was. Nothing here opens FILE through SQLite, which would leave -wal and -shm
// files beside a WAL-mode database even read-only: the decision reads the file header
// (https://www.sqlite.org/fileformat.html) and, for the refusal's list of objects, a copy in
// memory.
import Database from 'better-sqlite3';
import { closeSync, lstatSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { demoExistingObjects } from '../../generated/sqlite/demo/index.js';
import { DemoRefusal, shellQuoted } from './demo-database.js';

/** 'SCDM' — marks a SQLite file as made by this demo. */
export const DEMO_APPLICATION_ID = 0x5343444d;

/** What the demo found at FILE: nothing, an empty database to use in place, or its own earlier file to replace. */
export type DemoFileState = 'absent' | 'empty' | 'demo';

const MAGIC = 'SQLite format 3\u0000';
/** Page 1 holds sqlite_master's root; a leaf table page (0x0D) with no cell means an empty schema. */
const LEAF_TABLE_PAGE = 0x0d;
/** Past this size the refusal names no objects rather than copy the file into memory. */
const LIST_OBJECTS_UP_TO_BYTES = 64 * 1024 * 1024;

const statOrNull = (path: string): Stats | null => {
  try {
    return statSync(path);
  } catch {
    return null;
  }
};

const lstatOrNull = (path: string): Stats | null => {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
};

function readHeader(file: string): Buffer {
  const header = Buffer.alloc(108);
  const fd = openSync(file, 'r');
  try {
    let at = 0;
    for (let n = -1; at < header.length && n !== 0; at += n) n = readSync(fd, header, at, header.length - at, at);
    return header.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** The schema objects of FILE, read from a copy in memory (legacy journal mode: an in-memory database has no WAL). */
function objectsOf(file: string, size: number): string {
  if (size > LIST_OBJECTS_UP_TO_BYTES) return 'tables or views';
  const copy = readFileSync(file);
  copy[18] = 1;
  copy[19] = 1;
  const db = new Database(copy);
  try {
    const objects = demoExistingObjects.all({}, db);
    const shown = objects.slice(0, 5).map((o) => `${o.kind} ${o.name}`);
    return `${shown.join(', ')}${objects.length > shown.length ? ` and ${objects.length - shown.length} more` : ''}`;
  } catch {
    return 'tables or views';
  } finally {
    db.close();
  }
}

/** FILE's header carries the demo's mark: written before anything else, so it is there even when a run was cut short. */
function madeByTheDemo(file: string): boolean {
  const main = statOrNull(file);
  if (!main?.isFile()) return false;
  const header = readHeader(file);
  return header.length >= 72 && header.toString('latin1', 0, 16) === MAGIC && header.readUInt32BE(68) === DEMO_APPLICATION_ID;
}

/** The demo's own file from a run that did not finish (Ctrl-C, a crash), or one still open: never replaced blindly, but named as the demo's, with the way out. */
function leftovers(file: string, sidecar: string): DemoRefusal {
  const files = ['', '-wal', '-shm', '-journal'].filter((suffix) => suffix === '' || statOrNull(`${file}${suffix}`) !== null);
  return new DemoRefusal(
    `${file} is this demo's own database, left by a run that did not finish (interrupted, or still running or open elsewhere): its ${sidecar} file is not empty. ` +
      `If no demo or client has it open, remove the leftovers and run again: rm ${files.map((suffix) => shellQuoted(`${file}${suffix}`)).join(' ')}`,
  );
}

export function inspectDemoFile(file: string): DemoFileState {
  const refuse = (why: string) => new DemoRefusal(`${file} ${why}; the demo never writes into a database it did not make — choose another file`);
  // Content SQLite has not yet moved into FILE (a database in use, or not closed cleanly): the
  // header alone cannot tell what FILE holds, and opening it would change it.
  for (const sidecar of ['-wal', '-journal']) {
    if ((statOrNull(`${file}${sidecar}`)?.size ?? 0) > 0) {
      if (madeByTheDemo(file)) throw leftovers(file, sidecar);
      throw refuse(`has a non-empty ${sidecar} file beside it (open elsewhere, or not closed cleanly)`);
    }
  }
  const main = statOrNull(file);
  if (!main) {
    // SQLite would create the file a dangling link points to, wherever that is.
    if (lstatOrNull(file)?.isSymbolicLink()) throw refuse('is a symbolic link to nothing');
    return 'absent';
  }
  if (!main.isFile()) throw refuse('is not a regular file');
  if (main.size === 0) return 'empty';
  const header = readHeader(file);
  if (header.length < 108 || header.toString('latin1', 0, 16) !== MAGIC) throw refuse('is not a SQLite database');
  const applicationId = header.readUInt32BE(68);
  if (applicationId === DEMO_APPLICATION_ID) return 'demo';
  if (applicationId !== 0) throw refuse(`belongs to another application (application_id 0x${applicationId.toString(16)})`);
  const schemaIsEmpty = header[100] === LEAF_TABLE_PAGE && header.readUInt16BE(103) === 0;
  if (schemaIsEmpty && header.readUInt32BE(60) === 0) return 'empty';
  throw refuse(schemaIsEmpty ? 'has a user_version set by another application' : `already holds ${objectsOf(file, main.size)}`);
}
