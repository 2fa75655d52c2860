// The shape of one CLI command. src/cli/commands.ts lists them; the dispatcher
// (src/cli/main.ts) parses a command's own options with node:util parseArgs (strict) and
// hands it the values. Adding a command is one entry in that table.
import type { ParseArgsConfig } from 'node:util';
import type { ExitCode } from './exit-codes.js';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CliCommand {
  /** One line for `subagent-context --help`. */
  readonly summary: string;
  /** The arguments after the command name, e.g. `(--sqlite FILE | --postgres URL) [--json]`. */
  readonly synopsis: string;
  /** More lines for `subagent-context <command> --help`. */
  readonly details?: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** The command takes arguments after its options (`proxy -- <agent command>`). */
  readonly positionals?: boolean;
  run(values: OptionValues, io: CliIO, positionals: string[]): Promise<ExitCode>;
}
