// ccache for the one native build the suite runs: better-sqlite3 from source in the SQLite-only
// consumer project (test/packaging-hosts.test.ts), about 60 CPU-seconds of gcc per install here,
// the largest single cost of `npm test` and of each driver-range run in .ci/run. The build still
// runs whole (npm's install script, node-gyp's configure, make, the link); ccache answers a
// compile whose preprocessed input, flags and compiler are byte-identical to one it has seen
// (a new driver version or compiler is a miss, compiled as before). Used only where Debian's
// ccache is installed (.ci/run installs it; the README's two commands do not need it).
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** Debian's ccache puts compiler-named links here; first on PATH, they wrap gcc, g++, cc and c++. */
const CCACHE_LINKS = '/usr/lib/ccache';

/** Environment for a child that builds native code: through ccache where it is installed, else nothing added. */
export function compilerCacheEnv(): NodeJS.ProcessEnv {
  if (!existsSync(`${CCACHE_LINKS}/gcc`)) return {};
  return {
    PATH: `${CCACHE_LINKS}:${process.env.PATH ?? ''}`,
    // Each consumer project is a new mkdtemp folder: paths below it are hashed relative to the
    // build's folder, and the folder itself not at all, so the same build in another project hits.
    CCACHE_BASEDIR: tmpdir(),
    CCACHE_NOHASHDIR: '1',
  };
}
