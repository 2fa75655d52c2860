// The CLI's commands, by name. Adding one is one line here. Each is loaded when it is named
// (all of them only for `--help`): a run reads its own command's modules, not the report's
// HTML or the importer's, so `proxy` and `health` start sooner (docs/cli.md, "Start-up").
import type { CliCommand } from './command.js';

export const COMMANDS: Readonly<Record<string, () => Promise<CliCommand>>> = {
  migrate: async () => (await import('./migrate-command.js')).migrateCommand,
  health: async () => (await import('./health-command.js')).healthCommand,
  'host-index': async () => (await import('./host-index-command.js')).hostIndexCommand,
  demo: async () => (await import('./demo-command.js')).demoCommand,
  report: async () => (await import('./report-command.js')).reportCommand,
  proxy: async () => (await import('./proxy-command.js')).proxyCommand,
  import: async () => (await import('./import-command.js')).importCommand,
};
