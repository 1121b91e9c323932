// The device login under a hostile or slow authorization server: intervals and lifetimes are
// clamped, tokens that cannot go into a header are refused, every failure has the contract's
// exit code, and a stored working credential is never lost.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, mockGateway, runCommand, tempDirs } from '../helpers.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runTally } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const stateDir = tempDirs();
const T = Date.UTC(2026, 10, 21, 12);
const grant = (extra: string) => `{"device_code": "dc-1", "user_code": "ABCD-EFGH", "verification_uri": "https://gw.test/device", ${extra}}`;

/** Replies for as many polls as a login may make: the tests bound the polls, they do not count them (loose). */
function deviceGateway(codeBody: string, tokenReplies: [number, string][]) {
  const gw = mockGateway(GW, { loose: true });
  gw.pool.intercept({ path: '/oauth/device/code', method: 'POST' }).reply(200, codeBody, json);
  for (const [status, body] of tokenReplies) gw.pool.intercept({ path: '/oauth/token', method: 'POST' }).reply(status, body, json);
  return gw;
}

/** A clock that moves forward by what the command sleeps. */
function fakeTime() {
  let now = T;
  const sleeps: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)), sleeps };
}

describe('adversarial: the device login', () => {
  it('clamps a huge interval and expires_in instead of overflowing a timer or crashing', async () => {
    const time = fakeTime();
    const gw = deviceGateway(grant('"expires_in": 9007199254740991, "interval": 1e12'), [[400, '{"error": "slow_down"}'], [200, '{"access_token": "dt-0123456789abcdef", "expires_in": 9007199254740991}']]);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: stateDir() }, now: time.now, sleep: time.sleep });
    expect(result.code).toBe(0);
    expect(time.sleeps).toEqual([60_000, 60_000]);
    expect(result.stderr).toContain('(the code expires in 60 min; Ctrl-C cancels)');
    expect(result.stdout).toContain('with a device token (dt-0…ef).');
  });

  it('polls no later than the code expires, then says it expired (exit 3)', async () => {
    const time = fakeTime();
    const gw = deviceGateway(grant('"expires_in": 12, "interval": 5'), [[400, '{"error": "authorization_pending"}'], [400, '{"error": "authorization_pending"}'], [400, '{"error": "authorization_pending"}']]);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: stateDir() }, now: time.now, sleep: time.sleep });
    expect(result.code).toBe(3);
    expect(time.sleeps).toEqual([5000, 5000, 2000]);
    expect(result.stderr).toContain('tally: the device code expired before it was approved');
  });

  it.each([
    ['a line break', 'dt-good\\r\\nInjected: 1'],
    ['an escape sequence', 'dt-\\u001b[2J'],
    ['a space', 'dt two'],
  ])('refuses an access token with %s and stores nothing (exit 3)', async (_name, token) => {
    const dir = stateDir();
    const gw = deviceGateway(grant('"expires_in": 600, "interval": 1'), [[200, `{"access_token": "${token}"}`]]);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, sleep: async () => undefined });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('sent an access_token with characters that cannot go into a header');
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
  });

  it('refuses a refresh token with control characters too', async () => {
    const gw = deviceGateway(grant('"expires_in": 600, "interval": 1'), [[200, '{"access_token": "dt-0123456789abcdef", "refresh_token": "rt\\nX"}']]);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: stateDir() }, sleep: async () => undefined });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('sent an refresh_token with characters');
  });

  it.each([
    ['HTML', 500, '<html>down</html>', 1],
    ['an error with no code', 400, '{"error": 42}', 3],
    ['a 429', 429, '{}', 4],
  ])('ends a device login whose token endpoint answers %s with the contract exit code, never "internal error"', async (_name, status, body, code) => {
    const gw = deviceGateway(grant('"expires_in": 600, "interval": 1'), [[status, body], [status, body], [status, body], [status, body]]);
    const result = await runCommand(['login', '--device', '--base-url', GW], { transport: gw.transport, env: { TALLY_CONFIG_DIR: stateDir() }, sleep: async () => undefined });
    expect(result.code).toBe(code);
    expect(result.stderr).not.toContain('internal');
    expect(result.stderr).not.toContain('unexpected failure');
  });

  it('keeps the stored token when a renewal fails', async () => {
    const dir = stateDir();
    const stored = { access_token: 'dt-old-0123456789abcdef', refresh_token: 'rt-0123456789abcdef', expires_at: '2026-11-21T11:00:00.000Z' };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { base_url: GW, device_token: stored } } }), { mode: 0o600 });
    for (const [status, body] of [[500, '{"error": "server_error"}'], [200, '{"access_token": "bad\\r\\ntoken"}'], [200, 'not json']] as const) {
      // Up to four tries of a renewal (a failure may or may not be retried): loose.
      const gw = mockGateway(GW, { loose: true });
      gw.pool.intercept({ path: '/oauth/token', method: 'POST' }).reply(status, body, json).times(4);
      const result = await runCommand(['balance'], { transport: gw.transport, env: { TALLY_CONFIG_DIR: dir }, now: () => T });
      expect([1, 3]).toContain(result.code);
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.device_token).toEqual(stored);
    }
  });
});

describe('adversarial: a slow approval (built binary against the sandbox)', () => {
  it('waits for an approval as long as the code lasts when no --timeout is given', async () => {
    const sandbox: Sandbox = await startSandbox({ deviceInterval: 1, autoApproveAfterPolls: 3 });
    try {
      const dir = stateDir();
      const result = await runTally(['login', '--device', '--base-url', sandbox.baseUrl], { env: { TALLY_CONFIG_DIR: dir } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Signed in to');
      expect(sandbox.requestsTo('/oauth/token').length).toBe(3);
    } finally {
      await sandbox.close();
    }
  });

  it('stops at an explicit --timeout, wait included (exit 1, timed out), and stores nothing', async () => {
    const sandbox: Sandbox = await startSandbox({ deviceInterval: 1, deviceExpiresIn: 3600 });
    try {
      const dir = stateDir();
      const result = await runTally(['login', '--device', '--base-url', sandbox.baseUrl, '--timeout', '2'], { env: { TALLY_CONFIG_DIR: dir } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('tally: timed out after 2s');
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    } finally {
      await sandbox.close();
    }
  });
});
