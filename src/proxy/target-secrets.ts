// What the proxy and its writer print (WARNs, the summary, the log file) may echo the
// connection string or a secret it carries: a driver's ENOENT names the sslkey path. Masked as
// the CLI's own error lines are (src/connection-secrets.ts); a SQLite target carries none.
import { secretMasker } from '../connection-secrets.js';
import { matchDialect } from '../dialect.js';
import type { ProxyTarget } from './writer-protocol.js';

export function targetMasker(target: ProxyTarget): (text: string) => string {
  return matchDialect(target, { sqlite: () => (text: string) => text, postgres: ({ url }) => secretMasker([url]) });
}
