// `npm pack` of this package as a publish would make it: the sources are copied to a stage
// folder (with node_modules linked) and packed there, so the `prepack` build runs from an
// empty dist/ without touching the worktree's dist/, which other suites run concurrently.
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
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

export async function packPackage(work: string, repo = resolve('.')): Promise<PackedPackage> {
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
