// `subagent-context health`: runs checkHealth() and exits with the verdict's code, so an
// operator can wire the exit status to an alarm (docs/health.md).
import type { HealthVerdict } from '../types.js';
import type { CliCommand } from './command.js';
import { existsSync } from 'node:fs';
import { DATABASE_OPTIONS, DEFAULTED_DATABASE_SYNOPSIS, describeTarget, withDatabase } from './database.js';
import { chooseTarget, chosenTargetNote, requireDefaultStore } from './default-target.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { formatHealth } from '../render/format-health.js';

const VERDICT_EXIT: Record<HealthVerdict, ExitCode> = {
  healthy: EXIT.ok,
  shortfall: EXIT.shortfall,
  not_activated: EXIT.notActivated,
  nothing_since_activation: EXIT.nothingSinceActivation,
};

export const healthCommand: CliCommand = {
  summary: "check the writer's health: shortfall, excess, collisions and the verdict",
  synopsis: DEFAULTED_DATABASE_SYNOPSIS,
  details: [
    'Without --sqlite/--postgres: $SUBAGENT_CONTEXT_DB (a file path or a postgres:// URL), else the',
    "proxy's default store. Opens a SQLite file read-only (never creates one). Exit status: 0 healthy, 3 shortfall,",
    '4 not activated, 5 nothing since activation, 2 usage error, 7 database error, 8 driver not installed.',
    'A store set up moments ago exits 5 until its first subagent: "no activity yet", not a dead',
    'writer (a writer losing launches exits 3). docs/health.md says how to alarm on 5.',
  ].join('\n'),
  options: DATABASE_OPTIONS,
  async run(values, io) {
    const chosen = chooseTarget(values as { sqlite?: string; postgres?: string });
    const { target } = chosen;
    requireDefaultStore(chosen, existsSync);
    const note = chosenTargetNote(chosen, 'checking');
    if (note) io.err(`subagent-context: ${note}`);
    return withDatabase(target, { readonly: true }, async (db) => {
      const report = await db.store.checkHealth();
      io.out(values.json ? `${JSON.stringify(report)}\n` : formatHealth(report, describeTarget(target)));
      return VERDICT_EXIT[report.verdict];
    });
  },
};
