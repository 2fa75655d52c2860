// `subagent-context proxy [--sqlite FILE | --postgres URL] [--task T] -- <command> [args…]`:
// records the subagents of any ACP agent an editor runs, by standing between the two on stdio
// (src/proxy/run-proxy.ts). Without a database option the store is a SQLite file in the
// user's data directory (src/proxy/data-dir.ts). The exit status is the agent's own.
import { resolve } from 'node:path';
import { matchDialect } from '../dialect.js';
import type { ProxyTarget } from '../proxy/writer-protocol.js';
import { usageError } from './cli-error.js';
import type { CliCommand } from './command.js';
import { describeTarget } from './database.js';
import { chooseTarget } from './default-target.js';
import type { ExitCode } from './exit-codes.js';

export const proxyCommand: CliCommand = {
  summary: 'run an ACP agent behind a transparent stdio proxy that records its subagents',
  synopsis: '[--sqlite FILE | --postgres URL] [--task TASK] -- <agent command> [args…]',
  details: [
    'Put it in front of the agent command in your editor, e.g. `subagent-context proxy -- opencode acp`.',
    'Relays stdio byte for byte; records each ACP session, turn and subagent. Without a database',
    'option the store is $SUBAGENT_CONTEXT_DB (a file path or a postgres:// URL), else sessions.db in the data directory ($XDG_DATA_HOME/subagent-context, or',
    '~/.local/share/subagent-context; macOS ~/Library/Application Support/subagent-context;',
    'Windows %LOCALAPPDATA%\\subagent-context). --task names the task of every session (default:',
    "the session's cwd). The store's driver must be installed beside it (npx: -p better-sqlite3, or -p pg);",
    "without it the session runs unrecorded, with one WARN. Exits with the agent's exit code, or its",
    'signal; 127 when the agent command is not found, 126 when it cannot be run, 2 on a usage error.',
  ].join('\n'),
  options: { sqlite: { type: 'string' }, postgres: { type: 'string' }, task: { type: 'string' } },
  positionals: true,
  async run(values, _io, positionals) {
    const [command, ...args] = positionals;
    if (command === undefined || command === '') throw usageError('an agent command is required after `--` (e.g. `subagent-context proxy -- opencode acp`)');
    if (values.task === '') throw usageError('--task needs a value');
    // The same choice as report's, health's and migrate's, so they read what it records.
    const { target: chosen } = chooseTarget(values as { sqlite?: string; postgres?: string });
    const target = matchDialect<typeof chosen, ProxyTarget>(chosen, {
      sqlite: ({ file }) => ({ dialect: 'sqlite', file: resolve(file) }),
      postgres: (postgres) => postgres,
    });
    // Loaded here so `--help` and usage errors never start a worker.
    const { runProxy, endLikeTheAgent } = await import('../proxy/run-proxy.js');
    const end = await runProxy({ command, args, target, where: describeTarget(target), task: values.task as string | undefined });
    // The agent's own exit status passes through, whatever it is (not one of the CLI's codes).
    return endLikeTheAgent(end) as ExitCode;
  },
};
