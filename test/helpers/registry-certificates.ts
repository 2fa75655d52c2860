// NODE_EXTRA_CA_CERTS for the children that reach the npm registry, and only for them.
// Node 20 reads and parses the whole bundle it names when a process starts, TLS or not:
// `node -e 0` took 0.09–0.13 s with this machine's bundle (/etc/ssl/certs/ca-certificates.crt)
// against 0.05–0.07 s without (2026-12-07), and the suite starts about 2,600 node processes (the
// CLI, the proxy and its writer, the fake agents, the crash children, codegen), none of which
// opens a TLS connection. So the run's global setup (test/setup/registry-certificates.ts) moves
// the variable aside before the workers start, and `npm install` in the packaging suites
// (test/helpers/consumer-project.ts), the one thing that may fetch from the registry, gets it
// back. A machine without the variable is untouched.

/** Where the global setup keeps the caller's NODE_EXTRA_CA_CERTS for the run (a name Node does not read). */
export const KEPT_EXTRA_CA_CERTS = 'SUBAGENT_CONTEXT_TEST_EXTRA_CA_CERTS';

/** The environment a command that fetches from the registry needs: the caller's CA bundle, where one was set. */
export function registryEnv(): NodeJS.ProcessEnv {
  const kept = process.env[KEPT_EXTRA_CA_CERTS];
  return kept === undefined ? {} : { NODE_EXTRA_CA_CERTS: kept };
}
