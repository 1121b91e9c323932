// --jq, tally config and tally doctor.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, KEY, freshState, mockGateway, runCommand } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

function billing() {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/dashboard/billing/subscription' }).reply(200, '{"soft_limit_usd": 12345678901234567890.12345678, "hard_limit_usd": 1}', json);
  gw.pool.intercept({ path: '/dashboard/billing/usage' }).reply(200, '{"total_usage": 100}', json);
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, '{"name": "ci\\u001b[31m", "granted": 5}', json);
  return gw;
}

describe('--jq', () => {
  it('applies real jq to the --json document: strings raw, the rest as compact JSON, one per line, every digit kept', async () => {
    const digits = await runCommand(['billing', '--jq', '.subscription.soft_limit_usd'], { transport: billing().transport, env });
    expect(digits).toMatchObject({ code: 0, stdout: '12345678901234567890.12345678\n' });
    const many = await runCommand(['billing', '--jq', '.subscription | keys[], ., .hard_limit_usd'], { transport: billing().transport, env });
    expect(many.stdout).toBe('hard_limit_usd\nsoft_limit_usd\n{"soft_limit_usd":12345678901234567890.12345678,"hard_limit_usd":1}\n1\n');
  });

  it('escapes raw strings on a terminal, keeps them exact on a pipe', async () => {
    expect((await runCommand(['billing', '--jq', '.token.name'], { transport: billing().transport, env })).stdout).toBe('ci\u001b[31m\n');
    expect((await runCommand(['billing', '--jq', '.token.name'], { transport: billing().transport, env, tty: true })).stdout).toBe('ci\\e[31m\n');
  });

  it.each([
    ['.subscription[', 'syntax error'],
    ['.subscription.soft_limit_usd | ascii_downcase', 'explode input must be a string'],
    ['error("boom")', 'boom'],
  ])('exits 2 with jq\'s own words and prints nothing for %j', async (expression, words) => {
    const result = await runCommand(['billing', '--jq', expression], { transport: billing().transport, env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr).error;
    expect(error.kind).toBe('usage');
    expect(error.message).toContain(`--jq ${JSON.stringify(expression)}: jq: error`);
    expect(error.message).toContain(words);
  });

  it('is refused where there is no JSON document (demo) or with --csv', async () => {
    expect((await runCommand(['demo', '--jq', '.'], { env })).code).toBe(2);
    expect((await runCommand(['usage', '--csv', '--jq', '.'], { env, transport: mockGateway().transport })).stderr).toContain('--csv and --json (or --jq) each print the whole result; choose one');
  });
});

describe('tally config', () => {
  it('sets, gets, lists with sources, and unsets a profile setting, stored 0600 like a login', async () => {
    const dir = freshState();
    const run = (argv: string[], extra: NodeJS.ProcessEnv = {}) => runCommand(argv, { env: { TALLY_CONFIG_DIR: dir, ...extra } });
    expect((await run(['config', 'set', 'utc_offset', '+08:00'])).stdout).toBe('Set utc_offset = +08:00 in profile "default".\n');
    expect((await run(['config', 'set', 'pricing_ttl', '600'])).code).toBe(0);
    expect((await run(['config', 'set', 'base_url', 'https://gw.example.com/'])).code).toBe(0);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default).toEqual({ utc_offset: '+08:00', pricing_ttl: 600, base_url: 'https://gw.example.com' });
    expect((await run(['config', 'get', 'utc_offset'])).stdout).toBe('+08:00\n');
    const list = JSON.parse((await run(['config', 'list', '--json'], { TALLY_BASE_URL: 'https://env.example.com' })).stdout);
    expect(list).toEqual({
      profile: 'default',
      settings: [
        { key: 'base_url', value: 'https://env.example.com', source: 'environment' },
        { key: 'pricing_ttl', value: '600', source: 'profile' },
        { key: 'utc_offset', value: '+08:00', source: 'profile' },
        { key: 'device_code_url', value: 'https://env.example.com/oauth/device/code', source: 'default' },
        { key: 'token_url', value: 'https://env.example.com/oauth/token', source: 'default' },
        { key: 'client_id', value: 'tally', source: 'default' },
        { key: 'currency', value: null, source: 'not set' },
        { key: 'rate_source', value: 'https://api.frankfurter.app/latest', source: 'default' },
      ],
    });
    expect((await run(['config', 'unset', 'utc_offset'])).stdout).toBe('Removed utc_offset from profile "default".\n');
    expect((await run(['config', 'get', 'utc_offset'])).stdout).toBe('');
    // The profile's utc_offset is the day grid of every command: a usage window follows it.
    await run(['config', 'set', 'utc_offset', '-05:00']);
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, '{"buckets": [], "totals": {}}', json).times(2);
    const usage = await runCommand(['usage', '--json'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir, TALLY_API_KEY: KEY, TALLY_BASE_URL: GW }, now: () => Date.UTC(2026, 10, 21, 12) });
    expect(JSON.parse(usage.stdout).start_iso).toBe('2026-11-15T00:00:00-05:00');
  });

  it.each([
    [['config', 'set', 'api_key', 'sk-123'], 'api_key is a secret: config never stores one; use `tally login`'],
    [['config', 'set', 'device_token', 'x'], 'device_token is a secret'],
    [['config', 'set', 'base_url', 'http://gw.example.com'], 'base_url uses plain http:// to gw.example.com'],
    [['config', 'set', 'base_url', 'not a url'], 'base_url "not a url" is not a URL'],
    [['config', 'set', 'pricing_ttl', '-1'], 'pricing_ttl "-1" is not a whole number'],
    [['config', 'set', 'utc_offset', '8'], 'utc_offset "8" is not a UTC offset of the form +HH:MM'],
    [['config', 'set', 'colour', 'red'], 'there is no setting "colour"'],
    [['config', 'unset', 'utc_offset', '--profile', 'ghost'], 'there is no profile "ghost"'],
  ])('refuses %j (exit 2), writing nothing', async (argv, message) => {
    const dir = freshState();
    const result = await runCommand(argv, { env: { TALLY_CONFIG_DIR: dir } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
  });
});

describe('tally doctor', () => {
  it('lists one check per line and exits 0 when nothing fails; nothing secret in it', async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const sandbox = await startSandbox();
    try {
      const dir = freshState();
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: sandbox.baseUrl, api_key: sandbox.demoKey, utc_offset: '+08:00' } } }), { mode: 0o600 });
      // This machine's clock two minutes ahead of the gateway's.
      const result = await runCommand(['doctor', '--json'], { env: { TALLY_CONFIG_DIR: dir }, now: () => Date.now() + 120_000 });
      expect(result.code).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(Object.keys(out)).toEqual(['ok', 'checks']);
      expect(out.ok).toBe(true);
      const byName = Object.fromEntries(out.checks.map((c: { name: string }) => [c.name, c]));
      expect(out.checks.map((c: { name: string }) => c.name)).toEqual(['tally', 'node', 'state folder', 'config.json', 'profile', 'settings', 'base URL', 'credential', 'dns', 'tcp', 'gateway', 'clock', 'rate limit', 'price catalog']);
      expect(byName.node.level).toBe('pass');
      expect(byName.tally.detail).toBe(`0.0.0-test on ${process.platform} ${process.arch}`);
      expect(byName['config.json']).toEqual({ name: 'config.json', level: 'pass', detail: 'mode 0600' });
      expect(byName.settings.detail).toBe('utc_offset=+08:00 (profile)');
      expect(byName.credential.detail).toBe('API key sbx-sk-d…3c5e (profile)');
      expect(byName.clock.level).toBe('warn');
      expect(byName.clock.detail).toMatch(/^(119|120|121) s ahead of the gateway's clock: windows and "today" depend on it$/);
      expect(byName['rate limit']).toEqual({ name: 'rate limit', level: 'pass', detail: '119 of 120 requests left in this minute' });
      expect(result.stdout).not.toContain(sandbox.demoKey);
    } finally {
      await sandbox.close();
    }
  });

  it('fails (exit 1) when the credential is refused or the gateway cannot be reached, and says which', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "revoked"}}', json);
    const refused = await runCommand(['doctor'], { transport: gw.transport, env: { ...env, HTTPS_PROXY: 'http://user:secret@proxy.test:3128' } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^FAIL +gateway +gw\.test rejected the credential \(HTTP 401\): revoked$/m);
    expect(refused.stdout).toMatch(/^PASS +proxy +http:\/\/\*\*\*\*:\*\*\*\*@proxy\.test:3128\/$/m);
    expect(refused.stdout).not.toContain('secret');
    const down = await runCommand(['doctor'], { env: { TALLY_CONFIG_DIR: freshState(), TALLY_BASE_URL: 'http://127.0.0.1:9', TALLY_API_KEY: KEY } });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^FAIL +tcp +cannot connect to 127\.0\.0\.1:9 \(ECONNREFUSED\)$/m);
    const none = await runCommand(['doctor'], { env: { TALLY_CONFIG_DIR: freshState() } });
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/^FAIL +base URL +none: pass --base-url/m);
  });
});
