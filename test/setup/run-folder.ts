// vitest globalSetup, after scratch-folder.ts (so it lands in the run's scratch folder): a
// folder for this run alone, handed to the workers, where a suite leaves what another suite of
// the same run may reuse instead of making it again (test/helpers/packed-package.ts: the packed
// tarball, one `npm pack` per run, not one per suite). Removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this run's own, shared by its workers (test/setup/run-folder.ts). */
    runFolder: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'subagent-context-run-'));
  project.provide('runFolder', dir);
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
