// The dispatcher: `subagent-context <command> [options]`. Parses the command's own options
// strictly with node:util parseArgs, runs it, and turns every failure into one line on
// stderr and an exit code (src/cli/exit-codes.ts). Never prints a stack trace.
import { parseArgs } from 'node:util';
import type { CliCommand, CliIO, OptionValues } from './command.js';
import { COMMANDS } from './commands.js';
import { toCliError, usageError } from './cli-error.js';
import { EXIT, type ExitCode } from './exit-codes.js';

const PROGRAM = 'subagent-context';

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [`usage: ${PROGRAM} <command> [options]`, '', 'commands:', ...lines, '', `Run \`${PROGRAM} <command> --help\` for a command's options.`, ''].join(
    '\n',
  );
}

function commandUsage(name: string, command: CliCommand): string {
  return [`usage: ${PROGRAM} ${name} ${command.synopsis}`, '', command.summary, ...(command.details ? ['', command.details] : []), ''].join('\n');
}

function lookup(name: string): CliCommand {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw usageError(`unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')})`);
  return command;
}

function parseOptions(name: string, command: CliCommand, args: string[]): { values: OptionValues; positionals: string[] } {
  try {
    return parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: command.positionals === true,
    });
  } catch (err) {
    throw usageError(`${err instanceof Error ? err.message : String(err)} (see \`${PROGRAM} ${name} --help\`)`);
  }
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  try {
    const [name, ...rest] = argv;
    if (name === undefined) throw usageError(`a command is required (commands: ${Object.keys(COMMANDS).join(', ')}; see \`${PROGRAM} --help\`)`);
    if (name === '--help' || name === '-h' || name === 'help') {
      io.out(usage());
      return EXIT.ok;
    }
    const command = lookup(name);
    const { values, positionals } = parseOptions(name, command, rest);
    if (values.help) {
      io.out(commandUsage(name, command));
      return EXIT.ok;
    }
    return await command.run(values, io, positionals);
  } catch (err) {
    const failure = toCliError(err);
    io.err(`${PROGRAM}: ${failure.message}\n`);
    return failure.exitCode;
  }
}
