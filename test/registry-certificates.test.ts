// The run keeps NODE_EXTRA_CA_CERTS from the node processes the tests start (each would parse the
// bundle at start-up) and gives it back to `npm install` (test/helpers/registry-certificates.ts).
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_EXTRA_CA_CERTS, registryEnv } from './helpers/registry-certificates.js';
import setup from './setup/registry-certificates.js';

describe('the CA bundle during the run', () => {
  const before = { bundle: process.env.NODE_EXTRA_CA_CERTS, kept: process.env[KEPT_EXTRA_CA_CERTS] };
  afterEach(() => {
    for (const [name, value] of [
      ['NODE_EXTRA_CA_CERTS', before.bundle],
      [KEPT_EXTRA_CA_CERTS, before.kept],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('a bundle the caller set is moved aside, a child started meanwhile does not see it, registryEnv gives it back, the teardown restores it', () => {
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/some-bundle.pem';
    delete process.env[KEPT_EXTRA_CA_CERTS];
    const teardown = setup();
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.env.NODE_EXTRA_CA_CERTS))'], { encoding: 'utf8' });
    expect(child.stdout).toBe('undefined');
    expect(registryEnv()).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/some-bundle.pem' });
    teardown?.();
    expect(process.env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/some-bundle.pem');
    expect(process.env[KEPT_EXTRA_CA_CERTS]).toBeUndefined();
  });

  it('without a bundle nothing changes: no teardown, and registryEnv adds nothing', () => {
    delete process.env.NODE_EXTRA_CA_CERTS;
    delete process.env[KEPT_EXTRA_CA_CERTS];
    expect(setup()).toBeUndefined();
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    expect(registryEnv()).toEqual({});
  });

  it('this run: no worker holds the bundle where Node would read it', () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });
});
