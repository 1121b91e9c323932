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
  it('shows where the key comes from, masked', async () => {
    const result = await runCommand(['auth', 'status', '--json'], { env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      profile: 'default',
      profile_source: 'default',
      base_url: GW,
      base_url_source: 'environment (TALLY_BASE_URL)',
      credential: 'api-key',
      credential_source: 'environment (TALLY_API_KEY)',
      key: 'gw-sk-te…mnop',
    });
  });

  it('exits 3 when not logged in', async () => {
    const result = await runCommand(['auth', 'status'], { env: { TALLY_CONFIG_DIR: state() } });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('Profile     default (default)\nBase URL    not set\nCredential  none: run `tally login` or set TALLY_API_KEY\n');
    expect(result.stderr).toBe('tally: not logged in (profile "default")\n');
  });

  it('still works from the environment when the config file is corrupt, and says so otherwise', async () => {
    const dir = state();
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles":', { mode: 0o600 });
    const fromEnv = await runCommand(['auth', 'status'], { env: { TALLY_CONFIG_DIR: dir, TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    expect(fromEnv.code).toBe(0);
    const stored = await runCommand(['auth', 'status'], { env: { TALLY_CONFIG_DIR: dir } });
    expect(stored.code).toBe(2);
    expect(stored.stderr).toMatch(/^tally: config unreadable: .*config\.json; not modified/);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles":');
  });
});
