// `import <agent>` looks the agent up among its own importers only (review of the CLI, bug 2):
// `constructor`, `__proto__`, `toString` and `hasOwnProperty` found Object.prototype's members,
// so the import created and migrated the store, then crashed (exit 70, "importer.run is not a
// function"). Now each is a usage error (exit 2) before anything is opened: the SQLite file is
// never created, the PostgreSQL database keeps no table. In process (src/cli/main.ts).
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { byDialect } from './helpers/by-dialect.js';
import { RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describeBothDialects('cli review: import of a name Object.prototype has', (dialect) => {
  let store: ProxyStore; // a store that does not exist yet: a missing file, an empty database
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('%s: exit 2 naming the agents, nothing opened', async (agent) => {
    const run = await cli(['import', agent, '--from', RECORDED_PROJECTS, ...store.args]);
    expect(run.code, run.err).toBe(EXIT.usage);
    expect(run.err).toBe('subagent-context: name one agent to import: claude-code\n');
    expect(run.out).toBe('');
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      expect(existsSync(dirname(store.args[1]))).toBe(false); // not even the folder the store would be in
    } else {
      expect(await store.query("SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')")).toEqual([]);
    }
  });
});
