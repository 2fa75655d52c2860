#!/usr/bin/env node
// The `subagent-context` binary: `migrate`, `health` (src/cli/commands.ts), built to
// dist/src/cli.js. Exit codes: src/cli/exit-codes.ts and docs/health.md.
import { runCli } from './cli/main.js';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
});
