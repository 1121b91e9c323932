import { describe, expect, it } from 'vitest';
import { AuthError, Interrupted } from '../../src/errors.js';
import { type DeviceAuthorization, oauthEndpoints, pollForToken, requestDeviceCode } from '../../src/api/oauth.js';
import { GW, mockGateway, testClient } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const endpoints = oauthEndpoints(new URL(GW), undefined, undefined);
const authorization: DeviceAuthorization = { deviceCode: 'dc-1', userCode: 'ABCD-EFGH', verificationUri: `${GW}/device`, verificationUriComplete: undefined, expiresIn: 60, interval: 5 };

/** A clock that moves only when the poller sleeps. */
function fakeClock(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

function tokenEndpoint(...answers: [number, string][]) {
  const gw = mockGateway();
  for (const [status, body] of answers) {
    gw.pool.intercept({ path: '/oauth/token', method: 'POST', body: (b) => b.includes('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code') && b.includes('device_code=dc-1') && b.includes('client_id=tally') }).reply(status, body, json);
  }
  return gw;
}

describe('requestDeviceCode', () => {
  it('posts client_id as a form and reads the grant, 5 s interval when none is given', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/oauth/device/code', method: 'POST', body: 'client_id=tally', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      .reply(200, '{"device_code": "dc-1", "user_code": "ABCD-EFGH", "verification_uri": "https://gw.test/device", "expires_in": 600}', json);
    const grant = await requestDeviceCode(testClient(gw.transport, { credential: null }), endpoints);
    expect(grant).toEqual({ deviceCode: 'dc-1', userCode: 'ABCD-EFGH', verificationUri: 'https://gw.test/device', verificationUriComplete: undefined, expiresIn: 600, interval: 5 });
    gw.done();
  });

  it('never sends a credential to the OAuth endpoints', async () => {
    const gw = mockGateway();
    let headers: Record<string, string> = {};
    gw.pool.intercept({ path: '/oauth/device/code', method: 'POST' }).reply(200, (opts) => {
      headers = opts.headers as Record<string, string>;
      return '{"device_code": "d", "user_code": "U", "verification_uri": "https://gw.test/device", "expires_in": 5}';
    }, json);
    await requestDeviceCode(testClient(gw.transport), endpoints);
    expect(headers.authorization).toBeUndefined();
  });
});

describe('pollForToken', () => {
  it('waits the interval, keeps going while pending, and returns the token with its expiry', async () => {
    const clock = fakeClock();
    const gw = tokenEndpoint([400, '{"error": "authorization_pending"}'], [400, '{"error": "authorization_pending"}'], [200, '{"access_token": "at-1", "refresh_token": "rt-1", "expires_in": 3600, "token_type": "Bearer"}']);
    const token = await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, authorization, clock);
    expect(clock.sleeps).toEqual([5000, 5000, 5000]);
    expect(token).toEqual({ access_token: 'at-1', refresh_token: 'rt-1', expires_at: new Date(1_000_000 + 15_000 + 3_600_000).toISOString(), token_type: 'Bearer' });
    gw.done();
  });

  it('hears authorization_pending sent with HTTP 200 as well', async () => {
    const clock = fakeClock();
    const gw = tokenEndpoint([200, '{"error": "authorization_pending"}'], [200, '{"access_token": "at-2"}']);
    const token = await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, authorization, clock);
    expect(token.access_token).toBe('at-2');
    expect(clock.sleeps).toEqual([5000, 5000]);
  });

  it('adds 5 seconds to the interval on every slow_down', async () => {
    const clock = fakeClock();
    const gw = tokenEndpoint([400, '{"error": "slow_down"}'], [400, '{"error": "slow_down"}'], [400, '{"error": "authorization_pending"}'], [200, '{"access_token": "at"}']);
    await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, authorization, clock);
    expect(clock.sleeps).toEqual([5000, 10000, 15000, 15000]);
  });

  it.each([
    ['access_denied', 'access denied: the device login was declined'],
    ['expired_token', 'the device code expired before it was approved; run `tally login --device` again'],
  ])('stops with an AuthError on %s', async (code, message) => {
    const gw = tokenEndpoint([400, `{"error": "${code}"}`]);
    const error = await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, authorization, fakeClock()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    expect((error as Error).message).toBe(message);
  });

  it('stops when expires_in runs out, without another request', async () => {
    const gw = tokenEndpoint(...Array.from({ length: 11 }, () => [400, '{"error": "authorization_pending"}'] as [number, string]));
    const clock = fakeClock();
    const error = await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, { ...authorization, expiresIn: 60 }, clock).catch((e: unknown) => e);
    expect((error as Error).message).toBe('the device code expired before it was approved; run `tally login --device` again');
    expect(clock.sleeps).toHaveLength(12);
    gw.done();
  });

  it('can be cancelled while it waits', async () => {
    const gw = tokenEndpoint([400, '{"error": "authorization_pending"}']);
    let calls = 0;
    const clock = {
      now: () => 0,
      sleep: async () => {
        if (++calls === 2) throw new Interrupted('interrupted');
      },
    };
    const error = await pollForToken(async () => testClient(gw.transport, { credential: null }), endpoints, authorization, clock).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Interrupted);
    gw.done();
  });
});
