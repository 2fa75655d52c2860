// The consumer projects of test/packaging-hosts.test.ts: the packed tarball installed into an
// empty project beside one dialect's driver (from the npm cache or registry, never from this
// worktree), the README's and docs' examples written into it, and the whole compiled with
// `strict` and `skipLibCheck: false`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { byDialect } from './by-dialect.js';
import { compile, createConsumerProject, type ConsumerProject } from './consumer-project.js';
import type { CommandResult } from './run-command.js';
import { composeWorkedExample } from './readme-examples.js';
import { INSTALLS, example, exportsCheck, REQUIRE_CHECK } from './packaging-fixtures.js';
import type { Dialect } from './test-db.js';

export interface Prepared {
  readonly project: ConsumerProject;
  /** `tsc --build` of the NodeNext and the Bundler program. */
  readonly compiled: CommandResult;
}

export async function prepareHostProject(work: string, tarball: string, dialect: Dialect): Promise<Prepared> {
  const project = await createConsumerProject(join(work, `host-${dialect}`), {
    packages: [tarball, ...INSTALLS[dialect]],
    ...byDialect(dialect, {
      // Build better-sqlite3 from source at once: its prebuilt binaries live outside the npm registry.
      sqlite: { allowScripts: { 'better-sqlite3': true }, env: { npm_config_build_from_source: 'true' } },
      postgres: {},
    }),
  });
  if (project.install.code !== 0) throw new Error(`npm install (${dialect}) failed:\n${project.install.output}`);
  const worked = byDialect(dialect, {
    sqlite: () => example('sqlite/worked-example.ts'),
    postgres: () => composeWorkedExample(example('sqlite/worked-example.ts'), example('postgres/worked-example.ts')),
  })();
  writeFileSync(join(project.dir, 'worked-example.ts'), worked);
  writeFileSync(join(project.dir, 'typed-queries.ts'), example(`${dialect}/typed-queries.ts`));
  // README paths (b) and (d) as one program: (d)'s block reads "`store` as in (a) or (b)".
  const standalone = byDialect(dialect, { sqlite: () => example('sqlite/standalone-backend.ts') + example('sqlite/report-render.ts'), postgres: () => null })();
  if (standalone !== null) writeFileSync(join(project.dir, 'standalone-backend.ts'), standalone);
  writeFileSync(join(project.dir, 'exports-check.ts'), exportsCheck(dialect));
  writeFileSync(join(project.dir, 'require-check.cts'), REQUIRE_CHECK);
  return { project, compiled: await compile(project.dir) };
}
