import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand, tempDirs } from '../helpers.js';

const state = tempDirs();

const balance = '{"currency":"CNY","balance":"1.00","lifetime_spend":"0.00","plan":{"has_active_plan":false},"api_key":{"name":"k","prefix":"gw-sk","daily_cost_limit":"1.00","daily_cost_used":"0.00"}}';

describe('tally login', () => {
  it('prompts for the key without echo on a terminal, verifies it, and stores it', async () => {
    const dir = state();
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance', headers: { authorization: `Bearer ${KEY}` } }).reply(200, balance);
    const result = await runCommand(['login', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, tty: true, answers: [KEY] });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('API key (input hidden): \n');
    expect(result.stdout).toBe(`Logged in to ${GW} as profile "default" with key gw-sk-te…mnop.\nStored in ${join(dir, 'config.json')} (mode 0600).\n`);
    gw.done();
  });

  it('trims a CRLF from a piped key; --no-verify sends nothing', async () => {
    const dir = state();
    const gw = mockGateway();
    const result = await runCommand(['login', '--base-url', GW, '--with-token', '--no-verify', '--profile', 'gw.example.com'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, stdin: `${KEY}\r\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(not verified)');
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(stored.profiles['gw.example.com']).toEqual({ base_url: GW, api_key: KEY });
    gw.done();
  });

  it('asks for --with-token when there is no terminal', async () => {
    const result = await runCommand(['login', '--base-url', GW], { env: { TALLY_CONFIG_DIR: state() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tally: no terminal to ask for the key: pipe it in with `tally login --with-token`\n');
  });

});

describe('tally auth status / logout', () => {
  const accepting = () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance', headers: { authorization: `Bearer ${KEY}` } }).reply(200, balance);
    return gw;
  };

  it('checks the credential against the gateway and shows where it comes from, masked (exit 0 when accepted)', async () => {
    const gw = accepting();
    const result = await runCommand(['auth', 'status', '--json'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect({ ...out, profiles: undefined }).toEqual({
      profile: 'default',
      profile_source: 'default',
      base_url: GW,
      base_url_source: 'environment (TALLY_BASE_URL)',
      credential: 'api-key',
      credential_source: 'environment (TALLY_API_KEY)',
      key: 'gw-sk-te…mnop',
      check: { state: 'accepted', message: 'accepted by gw.test' },
      profiles: undefined,
    });
    expect(out.profiles).toHaveLength(1);
    gw.done();
  });

  it('exits 3 when the gateway rejects the credential, and 1 when it cannot be reached', async () => {
    const rejecting = mockGateway();
    rejecting.pool.intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "invalid key"}}');
    const rejected = await runCommand(['auth', 'status'], { transport: rejecting.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(rejected.code).toBe(3);
    expect(rejected.stdout).toContain('  Check       gw.test rejected the credential (HTTP 401): invalid key\n');
    expect(rejected.stderr).toBe('tally: the credential of profile "default" was rejected: gw.test rejected the credential (HTTP 401): invalid key\n');
    const down = mockGateway();
    down.pool.intercept({ path: '/v1/open/balance' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    const unreachable = await runCommand(['auth', 'status'], { transport: down.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe('tally: cannot connect to gw.test: connection refused\n');
    const offline = await runCommand(['auth', 'status', '--offline'], { transport: mockGateway().transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(offline.code).toBe(0);
  });

  it('lists every stored profile, the active one marked, each checked against its own gateway', async () => {
    const dir = state();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: GW, api_key: KEY }, work: { base_url: 'https://other.test', api_key: 'other-sk-0123456789abcdefghij' } } }), { mode: 0o600 });
    const { undiciTransport } = await import('../../src/api/transport.js');
    const { MockAgent } = await import('undici');
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get(GW).intercept({ path: '/v1/open/balance' }).reply(200, balance);
    agent.get('https://other.test').intercept({ path: '/v1/open/balance' }).reply(401, '{"error": {"message": "revoked"}}');
    const result = await runCommand(['auth', 'status', '--profile', 'work'], { transport: undiciTransport(agent), env: { TALLY_CONFIG_DIR: dir } });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(
      [
        'Profile work (active: --profile names it)',
        '  Base URL    https://other.test (stored profile)',
        '  Credential  API key from stored profile',
        '  Key         other-sk…ghij',
        '  Check       other.test rejected the credential (HTTP 401): revoked',
        'Profile default',
        `  Base URL    ${GW} (stored profile)`,
        '  Credential  API key from stored profile',
        '  Key         gw-sk-te…mnop',
        '  Check       accepted by gw.test',
        '',
      ].join('\n'),
    );
  });

  it('exits 3 when not logged in', async () => {
    const result = await runCommand(['auth', 'status'], { env: { TALLY_CONFIG_DIR: state() } });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('Profile default (active)\n  Base URL    not set\n  Credential  none\n  Check       no credential: run `tally login` or set TALLY_API_KEY\n');
    expect(result.stderr).toBe('tally: not logged in (profile "default")\n');
  });

  it('still works from the environment when the config file is corrupt, and says so otherwise', async () => {
    const dir = state();
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles":', { mode: 0o600 });
    const fromEnv = await runCommand(['auth', 'status'], { transport: accepting().transport, env: { TALLY_CONFIG_DIR: dir, TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stderr).toMatch(/^warning: config unreadable: .*config\.json; not modified .*; only the profile from the environment is shown\n$/);
    const stored = await runCommand(['auth', 'status'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toMatch(/^tally: config unreadable: .*config\.json; not modified/);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles":');
  });

  it('says there is no such profile and lists the ones there are; logout says what it removed', async () => {
    const dir = state();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: GW, api_key: KEY, pricing_ttl: 60 }, work: { base_url: GW } } }), { mode: 0o600 });
    const nope = await runCommand(['balance', '--profile', 'nope'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(nope.code).toBe(2);
    expect(nope.stderr).toBe('tally: there is no profile "nope"\nStored profiles: default, work.\n');
    const logout = await runCommand(['logout'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(logout.stdout).toBe('Logged out of profile "default": removed its API key gw-sk-te…mnop.\n');
    const forget = await runCommand(['logout', '--forget'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(forget.stdout).toBe(`Removed profile "default": its base URL ${GW}, its settings pricing_ttl.\n`);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ profiles: { work: { base_url: GW } } });
    const gone = await runCommand(['logout', '--profile', 'default'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(gone.stderr).toBe('tally: there is no profile "default"\nStored profiles: work.\n');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the profile name %s instead of pretending to store it', async (name) => {
    const dir = state();
    const result = await runCommand(['login', '--base-url', GW, '--with-token', '--no-verify', '--profile', name], { env: { TALLY_CONFIG_DIR: dir }, stdin: KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`tally: profile name "${name}" is reserved; choose another\n`);
  });
});
