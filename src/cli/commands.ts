// The CLI's commands, by name. Adding one is one line here.
import type { CliCommand } from './command.js';
import { demoCommand } from './demo-command.js';
import { healthCommand } from './health-command.js';
import { hostIndexCommand } from './host-index-command.js';
import { importCommand } from './import-command.js';
import { migrateCommand } from './migrate-command.js';
import { proxyCommand } from './proxy-command.js';
import { reportCommand } from './report-command.js';

export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  migrate: migrateCommand,
  health: healthCommand,
  'host-index': hostIndexCommand,
  demo: demoCommand,
  report: reportCommand,
  proxy: proxyCommand,
  import: importCommand,
};
