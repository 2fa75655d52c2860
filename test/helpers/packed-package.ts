// `npm pack` of this package as a publish would make it: the sources are copied to a stage
// folder (with node_modules linked) and packed there, so the `prepack` build runs from an
// empty dist/ without touching the worktree's dist/, which other suites run concurrently.
// One pack per run: the suites that read the tarball share it (sharedPackedPackage), since a
// pack builds the package again (about 10 CPU-s here, two of them in a full run before).
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { run } from './run-command.js';

/** What the package needs to build and pack (the documents ship as they are; the rest builds). */
const STAGED = [
  'package.json',
  'README.md',
  'CHANGELOG.md',
  'BENCHMARKS.md', // staged, so the test sees `files` leave it out
  'LICENSE',
  'docs',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'generated',
  'schema',
  'queries',
  'recordings/acp', // the ACP recordings the demo plays (package.json files)
];

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  readonly tarball: string;
  /** Every path in the tarball, relative to the package root. */
  readonly files: readonly string[];
  /** The folder it was packed in, holding the build `prepack` made. */
  readonly stage: string;
  /** Bytes of the .tgz (what a user downloads) and of its files unpacked (what lands in node_modules), as npm reports them. */
  readonly size: number;
  readonly unpackedSize: number;
}

async function packPackage(work: string, repo = resolve('.')): Promise<PackedPackage> {
  const stage = join(work, 'stage');
  mkdirSync(stage, { recursive: true });
  for (const entry of STAGED) cpSync(join(repo, entry), join(stage, entry), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage });
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  return { tarball: join(work, info.filename), files: info.files.map((f) => f.path).sort(), stage, size: info.size, unpackedSize: info.unpackedSize };
}

/** Longer than a pack takes on a loaded machine (about 10 s here), short of the suites' hooks (25 min). */
const WAIT_FOR_PACK_MS = 15 * 60_000;
/** This worker's answer: a worker runs several suites (isolate: false). */
let shared: Promise<PackedPackage> | undefined;

/**
 * The run's packed tarball (read-only: install it, read its files): packed by the first suite
 * that asks, in the run's folder (test/setup/run-folder.ts); a suite in another worker waits for
 * it. A failed pack fails every suite that asks, with the pack's own message.
 */
export function sharedPackedPackage(): Promise<PackedPackage> {
  return (shared ??= packedForRun(join(inject('runFolder'), 'packed')));
}

async function packedForRun(dir: string): Promise<PackedPackage> {
  const done = join(dir, 'packed.json');
  const failed = join(dir, 'failed.txt');
  try {
    mkdirSync(dir); // the claim: exactly one suite of the run makes it
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return waitForPack(done, failed);
  }
  try {
    const packed = await packPackage(dir);
    writeFileSync(`${done}.tmp`, JSON.stringify(packed));
    renameSync(`${done}.tmp`, done); // whole or absent, for the suites polling for it
    return packed;
  } catch (err) {
    writeFileSync(failed, err instanceof Error ? err.message : String(err));
    throw err;
  }
}

async function waitForPack(done: string, failed: string): Promise<PackedPackage> {
  const deadline = Date.now() + WAIT_FOR_PACK_MS;
  while (Date.now() < deadline) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as PackedPackage;
    if (existsSync(failed)) throw new Error(`npm pack failed in another suite of this run:\n${readFileSync(failed, 'utf8')}`);
    await sleep(200);
  }
  throw new Error(`no packed tarball after ${WAIT_FOR_PACK_MS / 60_000} min: the suite packing it did not finish`);
}
