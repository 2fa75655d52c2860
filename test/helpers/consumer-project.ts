// An empty host project that installs the packed tarball from the npm cache/registry (never
// from this worktree's node_modules), type-checks with this repository's TypeScript, and runs
// what it compiled. Stands in for a new user of the package.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compilerCacheEnv } from './compiler-cache.js';
import { registryEnv } from './registry-certificates.js';
import { run, type CommandResult } from './run-command.js';

const TSC = resolve('node_modules/typescript/bin/tsc');

/** The strictest settings the issue names: `strict`, and the installed declarations checked
 * too (`skipLibCheck: false`). NodeNext emits the program; Bundler only type-checks. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    // As the README tells a new project to set it (TypeScript 6 defaults `types` to []).
    types: ['node'],
    outDir: 'out',
    noEmitOnError: true,
  },
  // *.cts: a CommonJS module (`import x = require()`), emitted as .cjs.
  include: ['*.ts', '*.cts'],
};
/** A bundler compiles ES modules only, so the CommonJS check is left to NodeNext. */
const TSCONFIG_BUNDLER = { extends: './tsconfig.json', compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', noEmit: true }, include: ['*.ts'] };

/** Well past a real install here (better-sqlite3 builds from source: about a minute idle,
 * several on a loaded machine), short enough to leave a retry room in the suite's hook. */
const INSTALL_TIMEOUT_MS = 8 * 60_000;

export interface ConsumerProject {
  readonly dir: string;
  readonly install: CommandResult;
}

export async function createConsumerProject(
  dir: string,
  opts: { packages: readonly string[]; allowScripts?: Record<string, boolean>; env?: NodeJS.ProcessEnv },
): Promise<ConsumerProject> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module', allowScripts: opts.allowScripts ?? {} }, null, 2));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(dir, 'tsconfig.bundler.json'), JSON.stringify(TSCONFIG_BUNDLER, null, 2));
  // A native build (better-sqlite3 from source) compiles through ccache where it is installed;
  // the caller's CA bundle, which the run keeps from every other child, for the registry.
  const env = { ...compilerCacheEnv(), ...registryEnv(), ...opts.env };
  const npmInstall = () =>
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...opts.packages], { cwd: dir, env, timeoutMs: INSTALL_TIMEOUT_MS });
  let install = await npmInstall();
  if (install.timedOut) {
    // npm can hang idle with no socket open (seen here once in a loaded run: an install parked in
    // epoll for 10 minutes while the same install beside it finished). One clean retry; a second
    // hang fails the suite, naming both attempts.
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    rmSync(join(dir, 'package-lock.json'), { force: true });
    const retry = await npmInstall();
    install = {
      ...retry,
      output: `first attempt killed after ${INSTALL_TIMEOUT_MS / 60_000} min without finishing:\n${install.output}\nretry:\n${retry.output}`,
    };
  }
  return { dir, install };
}

/** Type-checks and emits the project's *.ts (NodeNext), and type-checks it again as a
 * bundler-resolved project would: two programs, built by one `tsc --build` (the errors of
 * either in its output; the exit code non-zero if either has one). One process instead of two
 * parses the declarations both programs read once: about 2.7 CPU-s less a project, most of
 * both checks being `@types/node` with `skipLibCheck: false`. */
export async function compile(dir: string): Promise<CommandResult> {
  return run(process.execPath, [TSC, '--build', 'tsconfig.json', 'tsconfig.bundler.json'], { cwd: dir });
}

/** Every installed copy of a package (node_modules/NAME at any depth). */
export function installedCopies(dir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    if (existsSync(join(modules, name, 'package.json'))) found.push(join(modules, name));
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const scoped = entry.name.startsWith('@') ? readdirSync(join(modules, entry.name)).map((n) => join(modules, entry.name, n)) : [join(modules, entry.name)];
      for (const pkg of scoped) walk(join(pkg, 'node_modules'));
    }
  };
  walk(join(dir, 'node_modules'));
  return found;
}

/** Every native addon (*.node) anywhere under the project's node_modules. */
export function nativeAddons(dir: string): string[] {
  return (readdirSync(join(dir, 'node_modules'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.node'));
}
