#!/usr/bin/env node
// The `subagent-context` binary: `migrate`, `health`, `demo`, `report` and `proxy` (the table
// in src/cli/commands.ts), built to dist/src/cli.js. Exit codes: src/cli/exit-codes.ts and
// docs/health.md.
import { runCli } from './cli/main.js';
import { EXIT } from './cli/exit-codes.js';

// A reader that leaves early (`report --json | head -c 10`) closes the pipe: like cat, stop
// writing and end quietly with the command's own exit status, never an EPIPE stack trace.
// Any other failure to write stdout (a full disk behind `> file`) is one line and EXIT.output.
let stdoutOpen = true;
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (!stdoutOpen) return;
  stdoutOpen = false;
  if (err.code === 'EPIPE') return;
  process.stderr.write(`subagent-context: cannot write the output (${err.code ?? 'error'}): ${err.message}\n`);
  process.exitCode = EXIT.output;
});
process.stderr.on('error', () => {}); // nowhere left to say it

const exitCode = await runCli(process.argv.slice(2), {
  out: (text) => void (stdoutOpen && process.stdout.write(text)),
  err: (text) => void process.stderr.write(text),
});
process.exitCode ??= exitCode;
