// The dispatcher: `subagent-context <command> [options]`. Parses the command's own options
// strictly with node:util parseArgs, runs it, and turns every failure into one line on
// stderr and an exit code (src/cli/exit-codes.ts). Never prints a stack trace.
import { parseArgs } from 'node:util';
import type { CliCommand, CliIO, OptionValues } from './command.js';
import { COMMANDS } from './commands.js';
import { secretMasker } from '../connection-secrets.js';
import { CliError, toCliError, usageError } from './cli-error.js';
import { DATABASE_ENV } from './default-target.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { packageVersion } from '../package-version.js';
import { visible } from '../render/display-text.js';

const PROGRAM = 'subagent-context';

async function usage(): Promise<string> {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const commands = await Promise.all(Object.entries(COMMANDS).map(async ([name, load]) => [name, await load()] as const));
  const lines = commands.map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    `usage: ${PROGRAM} <command> [options]`,
    `       ${PROGRAM} --version`,
    '',
    'commands:',
    ...lines,
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's options.`,
    '',
  ].join('\n');
}

function commandUsage(name: string, command: CliCommand): string {
  return [`usage: ${PROGRAM} ${name} ${command.synopsis}`, '', command.summary, ...(command.details ? ['', command.details] : []), ''].join('\n');
}

async function lookup(name: string): Promise<CliCommand> {
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) throw usageError(`unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')})`);
  return load();
}

/**
 * The command's options, strictly: an unknown option, a positional argument (unless the command
 * takes them: `proxy -- <agent>`), or a single-valued option given twice (`--sqlite a --sqlite b`:
 * parseArgs would silently keep the last) is a usage error. A repeated boolean flag changes
 * nothing and is accepted.
 */
function parseOptions(name: string, command: CliCommand, args: string[]): { values: OptionValues; positionals: string[] } {
  const options = { ...command.options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: command.positionals === true, tokens: true });
  } catch (err) {
    throw usageError(`${err instanceof Error ? err.message : String(err)} (see \`${PROGRAM} ${name} --help\`)`);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    const option = command.options[token.name];
    if (!option || option.type !== 'string' || option.multiple) continue;
    if (seen.has(token.name)) throw usageError(`--${token.name} was given more than once; give it once (see \`${PROGRAM} ${name} --help\`)`);
    seen.add(token.name);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  try {
    const [name, ...rest] = argv;
    if (name === undefined) throw usageError(`a command is required (commands: ${Object.keys(COMMANDS).join(', ')}; see \`${PROGRAM} --help\`)`);
    if (name === '--help' || name === '-h' || name === 'help') {
      io.out(await usage());
      return EXIT.ok;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      const version = packageVersion();
      if (version === null) throw new CliError(EXIT.internal, "cannot find this package's own package.json");
      io.out(`${version}\n`);
      return EXIT.ok;
    }
    const command = await lookup(name);
    const { values, positionals } = parseOptions(name, command, rest);
    if (values.help) {
      io.out(commandUsage(name, command));
      return EXIT.ok;
    }
    return await command.run(values, io, positionals);
  } catch (err) {
    const failure = toCliError(err);
    // A driver's message may echo what it was given (an sslkey path, the URL): never a secret.
    // It, and the package's own messages, may quote the database (an index definition, a
    // value): its control characters are shown as escapes, never sent to the terminal.
    // SUBAGENT_CONTEXT_DB may hold a URL with a password too (./default-target.ts).
    const env = process.env[DATABASE_ENV];
    io.err(`${PROGRAM}: ${visible(secretMasker(env ? [...argv, env] : argv)(failure.message))}\n`);
    return failure.exitCode;
  }
}
