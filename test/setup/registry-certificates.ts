// vitest globalSetup: NODE_EXTRA_CA_CERTS moved aside for the run, so the node processes the
// tests start do not each parse a CA bundle they never use (why, and who gets it back:
// test/helpers/registry-certificates.ts). Runs before the workers start, which inherit the
// environment as it is then; restored at the end.
import { KEPT_EXTRA_CA_CERTS } from '../helpers/registry-certificates.js';

export default function setup() {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  if (bundle === undefined) return;
  process.env[KEPT_EXTRA_CA_CERTS] = bundle;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => {
    process.env.NODE_EXTRA_CA_CERTS = bundle;
    delete process.env[KEPT_EXTRA_CA_CERTS];
  };
}
