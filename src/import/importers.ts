// The agents whose own transcripts `subagent-context import <agent>` reads, by name. A second
// agent is a module beside src/import/claude-code/ and one entry here: it lists its files,
// turns their lines into import units (src/import/import-store.ts) and keeps its progress
// under its own `source`; the line reader, the usage tally, the store and the ledger are shared.
import { defaultProjectsDir } from './claude-code/discover.js';
import { importClaudeCode, type ImportSummary } from './claude-code/import-claude-code.js';
import type { ImportRunOptions } from './import-store.js';

export interface Importer {
  /** Where the agent keeps its transcripts unless --from says otherwise, and how that is described. */
  defaultFrom(env: NodeJS.ProcessEnv): string;
  readonly fromHelp: string;
  run(options: ImportRunOptions): Promise<ImportSummary>;
}

export const IMPORTERS: Readonly<Record<string, Importer>> = {
  'claude-code': {
    defaultFrom: (env) => defaultProjectsDir(env),
    fromHelp: '$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects',
    run: importClaudeCode,
  },
};

export type { ImportSummary };
