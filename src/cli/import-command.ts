// `subagent-context import claude-code [--from DIR] [--sqlite FILE | --postgres URL] [--task T]`:
// reads an agent's own transcripts into the store as a host would have recorded them, plus
// the usage ledger (src/import/). The store is the other commands' (./default-target.ts) and,
// like the proxy's, is created when absent: the import is a host. Incremental: a second run
// reads only what was appended since.
import { byDialect } from '../dialect.js';
import { createWallClock } from '../instant.js';
import { IMPORTERS } from '../import/importers.js';
import type { ImportSummary } from '../import/importers.js';
import { usageError } from './cli-error.js';
import type { CliCommand } from './command.js';
import { DATABASE_OPTIONS, describeTarget } from './database.js';
import { chooseTarget, chosenTargetNote } from './default-target.js';
import { loadDriver } from './driver.js';
import { EXIT } from './exit-codes.js';
import { progressLine } from './progress-line.js';

function formatSummary(agent: string, s: ImportSummary, where: string): string {
  const lines = [
    `imported ${agent} into ${where}: ${s.sessions} session${s.sessions === 1 ? '' : 's'} seen, ${s.transcripts} transcript${s.transcripts === 1 ? '' : 's'} with new lines`,
    `  ${s.lines} lines (${(s.bytes / 1e6).toFixed(1)} MB) read, ${s.frames} subagent row writes`,
  ];
  if (s.malformedLines) lines.push(`  ${s.malformedLines} malformed line${s.malformedLines === 1 ? '' : 's'} skipped (see the WARN lines)`);
  if (s.failedFrames) lines.push(`  ${s.failedFrames} subagent row write${s.failedFrames === 1 ? '' : 's'} failed (health reports them)`);
  if (s.deferred) lines.push(`  ${s.deferred} transcript${s.deferred === 1 ? '' : 's'} left out of this import (see the WARN lines)`);
  if (s.helperTranscripts)
    lines.push(
      `  ${s.helperTranscripts} transcript${s.helperTranscripts === 1 ? '' : 's'} of Claude Code's own helper agents (compaction, prompt suggestions) not read: no tool call launched them, and their lines repeat the conversation they fork`,
    );
  if (s.unreadTranscripts)
    lines.push(
      `  ${s.unreadTranscripts} transcript${s.unreadTranscripts === 1 ? '' : 's'} in folders below a session's subagents folder (Claude Code's Workflow runs) not read: their usage is not in the ledger (see the WARN line)`,
    );
  if (s.orphanTranscripts)
    lines.push(
      `  ${s.orphanTranscripts} subagent transcript${s.orphanTranscripts === 1 ? '' : 's'} not read: their session's own transcript is gone, and no import read their launch`,
    );
  if (s.writeFailed)
    lines.push(
      `  ${s.writeFailed} transcript${s.writeFailed === 1 ? '' : 's'} not written: the store refused them (see the WARN lines); the next import retries them`,
    );
  if (s.overtaken)
    lines.push(
      `  ${s.overtaken} transcript${s.overtaken === 1 ? '' : 's'} left to another import running at the same time (see the WARN lines); the next import reads on from where it stopped`,
    );
  return `${lines.join('\n')}\n`;
}

export const importCommand: CliCommand = {
  summary: "import an agent's own transcripts (claude-code): its subagents and their usage per model",
  synopsis: `<agent> [--from DIR] [--sqlite FILE | --postgres URL] [--task TASK] [--json]`,
  details: [
    `Agents: ${Object.keys(IMPORTERS).join(', ')}. --from: where the transcripts are (claude-code: ${IMPORTERS['claude-code'].fromHelp}).`,
    'One task_sessions row per agent session (task: its working directory, or --task), one subagent row per',
    'launch, the usage ledger (tokens per subagent per model). Incremental and idempotent: run it again to take',
    'what was appended. Prompts, outputs and file contents are never stored. Without --sqlite/--postgres:',
    "$SUBAGENT_CONTEXT_DB, else the proxy's default store (created if absent). Exit status: 0 ok, 2 usage error,",
    '6 the store could not be prepared, 7 database error (also: a transcript the store refused), 8 driver not installed.',
  ].join('\n'),
  options: { ...DATABASE_OPTIONS, from: { type: 'string' }, task: { type: 'string' } },
  positionals: true,
  async run(values, io, positionals) {
    const [agent, ...extra] = positionals;
    // Its own entries only: `constructor`, `__proto__` or `toString` would find Object.prototype's.
    const importer = agent !== undefined && Object.hasOwn(IMPORTERS, agent) ? IMPORTERS[agent] : undefined;
    if (!importer || extra.length) throw usageError(`name one agent to import: ${Object.keys(IMPORTERS).join(', ')}`);
    if (values.task === '') throw usageError('--task needs a value');
    if (values.from === '') throw usageError('--from needs a folder');
    const from = (values.from as string | undefined) ?? importer.defaultFrom(process.env);
    const { existsSync, statSync } = await import('node:fs');
    if (!existsSync(from) || !statSync(from).isDirectory()) throw usageError(`no transcript folder at ${from}`);
    const chosen = chooseTarget(values as { sqlite?: string; postgres?: string });
    const note = chosenTargetNote(chosen, 'importing into');
    if (note) io.err(`subagent-context: ${note}`);
    const { target } = chosen;
    const { openImportStore } = await import('../import/open-import-store.js');
    const logger = {
      warn: (fields: object, msg: string) => io.err(`subagent-context: WARN ${msg} ${JSON.stringify(fields)}\n`),
    };
    const clock = createWallClock();
    const store = await loadDriver(byDialect(target.dialect, { sqlite: 'better-sqlite3', postgres: 'pg' } as const), () =>
      openImportStore(target, { logger, clock }),
    );
    try {
      if (!(await store.prepare())) {
        io.err(`subagent-context: the store at ${describeTarget(target)} could not be prepared (see the WARN lines); nothing was imported\n`);
        return EXIT.migrationFailed;
      }
      const bar = progressLine(`importing ${agent}`);
      let summary: ImportSummary;
      try {
        summary = await importer.run({ from, store, task: values.task as string | undefined, logger, clock, onProgress: bar.update });
      } finally {
        bar.end();
      }
      io.out(values.json ? `${JSON.stringify(summary)}\n` : formatSummary(agent!, summary, describeTarget(target)));
      return summary.writeFailed > 0 ? EXIT.database : EXIT.ok; // a cron job must notice
    } finally {
      await store.close();
    }
  },
};
