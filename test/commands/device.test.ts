import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, mockGateway, runCommand, tempDirs } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const stateDir = tempDirs();

const T = Date.UTC(2026, 10, 21, 12);

function storeDeviceToken(dir: string, token: Record<string, string>) {
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: GW, device_token: token } } }), { mode: 0o600 });
}

describe('tally login --device', () => {
  it('shows the code, polls until approved, and stores the token 0600', async () => {
    const dir = stateDir();
    const gw = mockGateway();
    gw.pool.intercept({ path: '/oauth/device/code', method: 'POST' }).reply(200, '{"device_code": "dc-secret-1", "user_code": "WXYZ-1234", "verification_uri": "https://gw.test/device", "verification_uri_complete": "https://gw.test/device?user_code=WXYZ-1234", "expires_in": 600, "interval": 2}', json);
    gw.pool.intercept({ path: '/oauth/token', method: 'POST' }).reply(400, '{"error": "authorization_pending"}', json);
    gw.pool.intercept({ path: '/oauth/token', method: 'POST' }).reply(200, '{"access_token": "dt-access-token-0123456789", "refresh_token": "dt-refresh-0123456789", "expires_in": 3600}', json);
    const sleeps: number[] = [];
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T, sleep: async (ms) => void sleeps.push(ms) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('\n  Open:        https://gw.test/device\n  Enter code:  WXYZ-1234\n  Or open:     https://gw.test/device?user_code=WXYZ-1234\n  (the code expires in 10 min; Ctrl-C cancels)\n\n');
    expect(sleeps).toEqual([2000, 2000]);
    expect(result.stdout).toBe(
      `Signed in to ${GW} as profile "default" with a device token (dt-acces…6789), valid until 2026-11-21T13:00:00.000Z.\n` +
        'A device token works for `tally balance` (and balance checks) only; other commands need an API key (`tally login --with-token`).\n',
    );
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({
      base_url: GW,
      device_token: { access_token: 'dt-access-token-0123456789', refresh_token: 'dt-refresh-0123456789', expires_at: '2026-11-21T13:00:00.000Z' },
    });
    expect(result.stdout + result.stderr).not.toContain('dc-secret-1');
    gw.done();
  });

  it('exits 3 and stores nothing when access is denied', async () => {
    const dir = stateDir();
    const gw = mockGateway();
    gw.pool.intercept({ path: '/oauth/device/code', method: 'POST' }).reply(200, '{"device_code": "dc", "user_code": "U", "verification_uri": "https://gw.test/device", "expires_in": 600}', json);
    gw.pool.intercept({ path: '/oauth/token', method: 'POST' }).reply(400, '{"error": "access_denied"}', json);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('tally: access denied: the device login was declined\n');
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
  });
});

describe('a stored device token', () => {
  it('is shown by auth status as a device token with its expiry, masked', async () => {
    const dir = stateDir();
    storeDeviceToken(dir, { access_token: 'dt-access-token-0123456789', expires_at: '2026-11-21T13:00:00.000Z' });
    const result = await runCommand(['auth', 'status', '--offline'], { env: { TALLY_CONFIG_DIR: dir }, now: () => T });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Profile default (active)\n  Base URL    ${GW} (stored profile)\n  Credential  device token (balance only) from stored profile\n  Token       dt-acces…6789\n  Expires     2026-11-21T13:00:00.000Z\n  Check       not checked (--offline)\n`,
    );
  });

  it('works for balance, which then has no key-level limit', async () => {
    const dir = stateDir();
    storeDeviceToken(dir, { access_token: 'dt-access-token-0123456789', expires_at: '2026-11-21T13:00:00.000Z' });
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance', headers: { authorization: 'Bearer dt-access-token-0123456789' } }).reply(200, '{"currency": "CNY", "balance": "8.00", "lifetime_spend": "2.00", "plan": {"has_active_plan": false}, "api_key": null}', json);
    const result = await runCommand(['balance'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T });
    expect(result.stdout).toContain('Key             signed in with a device token, no key-level limit\n');
  });

  it.each([
    [['usage'], '/v1/open/usage'],
    [['logs'], '/v1/open/logs'],
    // It needs the day grid first: its first request is a usage request.
    [['usage', '--by', 'model'], '/v1/open/usage'],
    [['models'], '/v1/models'],
    [['billing'], '/dashboard/billing/subscription'],
  ])('makes %j say an API key is needed (exit 3) without a request', async (argv, path) => {
    const dir = stateDir();
    storeDeviceToken(dir, { access_token: 'dt-access-token-0123456789' });
    const gw = mockGateway();
    const result = await runCommand(argv, { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(`tally: ${path} needs an API key, and this profile is signed in with a device token (which the service accepts for balance only); run \`tally login --with-token\` with an API key, or set TALLY_API_KEY\n`);
    gw.done();
  });

  it('is renewed with its refresh token once expired', async () => {
    const dir = stateDir();
    storeDeviceToken(dir, { access_token: 'dt-old-0123456789', refresh_token: 'rt-0123456789', expires_at: '2026-11-21T11:00:00.000Z' });
    const gw = mockGateway();
    gw.pool.intercept({ path: '/oauth/token', method: 'POST', body: (b) => b.includes('grant_type=refresh_token') && b.includes('refresh_token=rt-0123456789') }).reply(200, '{"access_token": "dt-new-0123456789", "expires_in": 600}', json);
    gw.pool.intercept({ path: '/v1/open/balance', headers: { authorization: 'Bearer dt-new-0123456789' } }).reply(200, '{"currency": "CNY", "balance": "8.00", "lifetime_spend": "2.00", "plan": {"has_active_plan": false}, "api_key": null}', json);
    const result = await runCommand(['balance', '--json'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T });
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.device_token).toEqual({
      access_token: 'dt-new-0123456789',
      refresh_token: 'rt-0123456789',
      expires_at: '2026-11-21T12:10:00.000Z',
    });
    gw.done();
  });

  it('says the login expired, and how to sign in again, when it cannot be renewed', async () => {
    const dir = stateDir();
    storeDeviceToken(dir, { access_token: 'dt-old-0123456789', expires_at: '2026-11-21T11:00:00.000Z' });
    const result = await runCommand(['balance'], { transport: mockGateway().transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('tally: the device login of profile "default" expired at 2026-11-21T11:00:00.000Z; run `tally login --device` again\n');
  });
});
