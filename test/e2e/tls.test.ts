// HTTPS end to end: `tally sandbox --tls` makes a certificate for its state folder, and tally
// trusts it only through TALLY_CA_FILE.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { sandboxTls } from '../../src/sandbox/tls.js';
import { BIN, NODE, runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const state = tempDir();
let sandbox: Sandbox;
let certFile: string;
beforeAll(async () => {
  const tls = await sandboxTls(state.path);
  certFile = tls.certFile;
  sandbox = await startSandbox({ now: clockStartingAt(NOW), tls });
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

describe('HTTPS against the TLS sandbox', () => {
  it('makes one certificate per state folder, kept 0600 beside its key, and serves https', async () => {
    expect(sandbox.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(`${state.path}/sandbox/tls-key.pem`).mode & 0o777).toBe(0o600);
    expect(readFileSync(certFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    // Asked again for the same folder: the same certificate.
    expect((await sandboxTls(state.path)).cert).toBe(readFileSync(certFile, 'utf8'));
  });

  it('trusts it through TALLY_CA_FILE, over keep-alive connections, and says clearly what is wrong without it', async () => {
    const env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
    const trusted = await runTally(['status', '--json', '--debug'], { env: { ...env, TALLY_CA_FILE: certFile }, now: NOW });
    expect(trusted.code).toBe(0);
    expect(Object.keys(JSON.parse(trusted.stdout))).toEqual(['balance', 'usage', 'top_models', 'forecast', 'alert']);
    expect(trusted.stderr).toMatch(/GET https:\/\/127\.0\.0\.1:\d+\/v1\/open\/balance .* -> 200 in \d+ ms, (new connection|connection reused)/);
    const untrusted = await runTally(['balance'], { env, now: NOW });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/^tally: the TLS certificate of 127\.0\.0\.1:\d+ is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\); for a private CA or a TLS-inspecting proxy, name its certificate in TALLY_CA_FILE \(PEM\)\n$/);
    const missing = await runTally(['balance'], { env: { ...env, TALLY_CA_FILE: `${state.path}/nope.pem` }, now: NOW });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('TALLY_CA_FILE');
  });

  it('is trusted by doctor through TALLY_CA_FILE as by every command: its TLS check passes, with no warning of Node\'s', async () => {
    const env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC', TALLY_CA_FILE: certFile };
    const doctor = await runTally(['doctor', '--json'], { env, now: NOW });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; level: string; detail: string }[] }).checks;
    expect(checks.find((c) => c.name === 'tls'), doctor.stdout).toMatchObject({ level: 'pass', detail: expect.stringMatching(/^TLS TLSv1\.3 with 127\.0\.0\.1/) });
    expect(checks.find((c) => c.name === 'ca file')).toMatchObject({ level: 'pass' });
    expect(doctor.stderr).not.toMatch(/DeprecationWarning|\(node:\d+\)/);
    // Without it, the failure is the real one (the certificate is self-signed).
    const untrusted = await runTally(['doctor', '--json'], { env: { ...env, TALLY_CA_FILE: '' }, now: NOW });
    expect((JSON.parse(untrusted.stdout) as { checks: { name: string; level: string }[] }).checks.find((c) => c.name === 'tls')).toMatchObject({ level: 'fail' });
    expect(untrusted.stderr).not.toMatch(/DeprecationWarning/);
  });

  it('is what `tally sandbox --tls` serves, printing the TALLY_CA_FILE line that trusts it', async () => {
    const dir = tempDir();
    try {
      const child = spawn(NODE, [BIN, 'sandbox', '--tls'], { env: { PATH: process.env.PATH, TALLY_CONFIG_DIR: dir.path }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const closed = new Promise((resolve) => child.on('close', resolve));
      for (let i = 0; i < 100 && !out.includes('Press Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain(`export TALLY_CA_FILE=${dir.path}/sandbox/tls-cert.pem`);
      const base = /https:\/\/127\.0\.0\.1:\d+/.exec(out)![0];
      const balance = await runTally(['balance', '--json'], { env: { TALLY_CONFIG_DIR: dir.path, TALLY_BASE_URL: base, TALLY_API_KEY: sandbox.demoKey, TALLY_CA_FILE: `${dir.path}/sandbox/tls-cert.pem` } });
      expect(balance.code).toBe(0);
      child.kill('SIGINT');
      await closed;
    } finally {
      dir.remove();
    }
  });
});
