// `subagent-context demo`: the package's main job end to end on a database of its own: by
// default a new SQLite file (the embedded default), or an empty PostgreSQL database.
import type { CliCommand } from './command.js';
import { EXIT } from './exit-codes.js';

export const demoCommand: CliCommand = {
  summary: 'seed a sample host history, migrate and backfill it, stream live frames, print the report',
  synopsis: '[--sqlite FILE | --postgres URL]',
  details:
    'Creates FILE (default ./subagent-context-demo.db) or uses an EMPTY PostgreSQL database; never writes into a ' +
    'database it did not create. Exit status: 0 ok, 2 refused or usage error, 7 the demo did not complete healthy.',
  options: { sqlite: { type: 'string' }, postgres: { type: 'string' } },
  async run(values) {
    // Loaded on demand, like the drivers: --help and usage errors stay fast.
    const { runDemo } = await import('../demo/index.js');
    const code = await runDemo({ sqlite: values.sqlite as string | undefined, postgres: values.postgres as string | undefined, out: process.stdout });
    return code === 0 ? EXIT.ok : code === 2 ? EXIT.usage : EXIT.database;
  },
};
