// Runs a command inside a loopback-only network namespace (test/agents/netns.ts) and exits
// with its status: `tsx scripts/offline.ts vitest run -c vitest.agents.config.ts`.
import { runOffline } from '../test/agents/netns.js';

const argv = process.argv.slice(2);
if (!argv.length) throw new Error('usage: tsx scripts/offline.ts COMMAND [ARG…]');
process.exit(runOffline(argv));
