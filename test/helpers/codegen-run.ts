// Runs the whole codegen (scripts/codegen.ts) on a copy of schema/ and queries/ after `edit`
// changed it, against the given PostgreSQL database: what the codegen tests use to show that a
// broken statement or declaration fails it, naming the file.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CodegenRun {
  readonly status: number | null;
  readonly output: string;
  /** The module `generated` named (relative to the copy's generated/), when the run succeeded. */
  readonly module?: string;
}

export function runCodegen(pgUrl: string, edit: (root: string) => void, generated?: string): CodegenRun {
  const work = mkdtempSync(join(tmpdir(), 'subagent-context-codegen-test-'));
  try {
    for (const dir of ['schema', 'queries']) cpSync(dir, join(work, dir), { recursive: true });
    edit(work);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/codegen.ts'], {
      encoding: 'utf8',
      env: { ...process.env, SUBAGENT_CONTEXT_CODEGEN_ROOT: work, SUBAGENT_CONTEXT_CODEGEN_PG_URL: pgUrl },
    });
    const module = generated && run.status === 0 ? readFileSync(join(work, 'generated', generated), 'utf8') : undefined;
    return { status: run.status, output: `${run.stdout}${run.stderr}`, module };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
