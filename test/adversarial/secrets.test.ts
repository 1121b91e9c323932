// Secrets stay secret: not in output, not in --debug logs, not in files other than the
// credential store, not sent across a redirect.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { GW, KEY, mockGateway, runCommand, runTally, tempDir, testClient } from '../helpers.js';

let sandbox: Sandbox;
const dirs: { path: string; remove: () => void }[] = [];
function state() {
  const d = tempDir();
  dirs.push(d);
  return d.path;
}
beforeAll(async () => {
  sandbox = await startSandbox({ deviceInterval: 1, autoApproveAfterPolls: 2 });
});
afterAll(async () => {
  await sandbox.close();
  dirs.forEach((d) => d.remove());
});

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('adversarial: secrets in output and logs', () => {
  it('--debug across login, balance and device login shows no key, token or device code', async () => {
    const dir = state();
    const outputs: string[] = [];
    const login = await runTally(['login', '--base-url', sandbox.baseUrl, '--with-token', '--debug'], { env: { TALLY_CONFIG_DIR: dir }, input: sandbox.demoKey });
    const balance = await runTally(['balance', '--debug'], { env: { TALLY_CONFIG_DIR: dir } });
    const device = await runTally(['login', '--device', '--debug', '--profile', 'desk'], { env: { TALLY_CONFIG_DIR: dir, TALLY_BASE_URL: sandbox.baseUrl } });
    const deviceBalance = await runTally(['balance', '--debug', '--profile', 'desk'], { env: { TALLY_CONFIG_DIR: dir } });
    for (const r of [login, balance, device, deviceBalance]) {
      expect(r.code).toBe(0);
      outputs.push(r.stdout, r.stderr);
    }
    expect(login.stderr).toContain('[authorization: Bearer ****]');
    const token = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.desk.device_token;
    const deviceCode = sandbox.requestsTo('/oauth/token').at(-1)!.form!.device_code!;
    const secrets = [sandbox.demoKey, token.access_token, token.refresh_token, deviceCode];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(12);
      for (const text of outputs) expect(text).not.toContain(secret);
      for (const file of filesBelow(dir).filter((f) => !f.endsWith('config.json'))) expect(readFileSync(file, 'utf8')).not.toContain(secret);
    }
  });

  it('auth status never shows more than the first 8 and last 4 characters', async () => {
    const result = await runCommand(['auth', 'status', '--json'], { env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    const shown = JSON.parse(result.stdout).key as string;
    expect(shown).toBe(`${KEY.slice(0, 8)}…${KEY.slice(-4)}`);
    expect(result.stdout).not.toContain(KEY.slice(8, -4));
  });

  it('masks a key the service echoes back in an error, also in --json errors', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(401, `{"error": {"message": "key ${KEY} is revoked"}}`);
    const result = await runCommand(['balance', '--json'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(result.stderr).not.toContain(KEY);
    expect(JSON.parse(result.stderr).error.message).toContain('gw-sk-te…mnop');
  });
});

describe('adversarial: redirects never carry the credential', () => {
  let other: Server;
  let seen: IncomingHttpHeaders[] = [];
  let redirector: Server;
  let target = '';
  beforeAll(async () => {
    other = createServer((req, res) => {
      seen.push(req.headers);
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    redirector = createServer((_req, res) => {
      res.writeHead(302, { location: target });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    other.close();
    redirector.close();
  });

  it.each([
    ['another port', () => `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1/open/balance`],
    ['another host', () => `http://localhost:${(other.address() as AddressInfo).port}/v1/open/balance`],
  ])('refuses a redirect to %s and the other server sees nothing', async (_name, location) => {
    seen = [];
    target = location();
    const base = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    const result = await runTally(['balance'], { env: { TALLY_CONFIG_DIR: state(), TALLY_BASE_URL: base, TALLY_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('redirected /v1/open/balance to another origin');
    expect(seen).toEqual([]);
  });

  it('refuses a redirect from https to http on the same host', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(301, '', { headers: { location: 'http://gw.test/v1/open/balance' } });
    const error = await testClient(gw.transport).requestJson({ path: '/v1/open/balance', family: 'native', auth: 'any' }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('gw.test redirected /v1/open/balance to another origin (http://gw.test); not followed, so the credential stays here');
    gw.done();
  });
});

describe('adversarial: a secret in every encoding the output uses', () => {
  // A key holding what JSON, CSV, Markdown and HTML each escape: `"`, `\`, `_`, `&`, `<`.
  const ODD_KEY = 'gw-sk-odd"quote\\slash_under&amp<lt1234567890';
  const echoing = () => {
    const gw = mockGateway();
    const record = { id: 'c1', created_at: 1795800000, model: `echo ${ODD_KEY}`, note: ODD_KEY, cost: '0.01000000' };
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(200, JSON.stringify({ data: [record], has_more: false }), { headers: { 'content-type': 'application/json' } }).persist();
    return gw;
  };
  const escapedForms = [ODD_KEY, JSON.stringify(ODD_KEY).slice(1, -1), ODD_KEY.replace(/"/g, '""'), 'quote\\\\slash', 'slash_under', 'under&amp;amp'];

  it.each([[['--json']], [['--ndjson']], [['--csv']], [[]]])('logs %j shows the key in no form, escaped or not', async (format) => {
    const result = await runCommand(['logs', '--since', '2d', ...format], { transport: echoing().transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: ODD_KEY, TZ: 'UTC' }, now: () => 1795800100_000 });
    expect(result.code, result.stderr).toBe(0);
    for (const form of escapedForms) expect(result.stdout, form).not.toContain(form);
    expect(result.stdout).toContain('gw-sk-od…');
  });

  it('an unparseable base URL is never echoed with its password or its ?token=', async () => {
    for (const url of ['https//user:hunter2hunter2@gw.example.com/?token=abcdefabcdef', 'ht tp://gw.example.com/v1?token=abcdefabcdef#frag']) {
      const flag = await runCommand(['balance', '--base-url', url], { env: { TALLY_API_KEY: KEY } });
      const doctor = await runCommand(['doctor'], { env: { TALLY_BASE_URL: url, TALLY_API_KEY: KEY } });
      for (const result of [flag, doctor]) {
        expect(result.stdout + result.stderr).not.toMatch(/hunter2|abcdefabcdef|frag/);
        expect(result.stdout + result.stderr).toMatch(/is not a URL/);
      }
    }
  });
});
