// The key's own quota (figures/key-quota.ts): read from the compatible token record, with literal
// amounts; none where there is none to read (unlimited, a device token, no endpoint), unknown
// (never a zero) where it could not be read, and the exit code a gate on it ends with; a reading
// remembered for a few minutes spares the gateway's strict limit, but not a gate's.
import { describe, expect, it } from 'vitest';
import { fetchKeyQuota, keyQuotaJson, keyQuotaOf, quotaReadError } from '../../src/figures/key-quota.js';
import { balanceOf } from '../../src/figures/balance.js';
import type { Transport } from '../../src/api/transport.js';
import { GW, KEY, mockGateway, tempDir, testClient, testContext } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const record = (fields: string) => `{"object":"token_usage","name":"ci-runner",${fields},"model_limits":["default"],"expires_at":0,"currency":"CNY"}`;

describe("the key's quota", () => {
  it('reads what the record states, to the digit, with its unit', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, record('"total_granted":200.00000000,"total_used":12.34567891,"total_available":187.65432109,"unlimited_quota":false'), json);
    const figure = await fetchKeyQuota(testClient(gw.transport));
    expect(keyQuotaJson(figure)).toEqual({ remaining: '187.65432109', granted: '200.00000000', used: '12.34567891', currency: 'CNY' });
    gw.done();
  });

  it('is none for an unlimited key, a gateway without the endpoint and a device token (nothing asked)', async () => {
    const unlimited = mockGateway();
    unlimited.pool.intercept({ path: '/api/usage/token/' }).reply(200, record('"total_granted":0,"total_used":3.5,"total_available":0,"unlimited_quota":true'), json);
    expect(await fetchKeyQuota(testClient(unlimited.transport))).toEqual({ state: 'none', reason: 'the key has an unlimited quota' });
    const older = mockGateway();
    older.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{"error":{"message":"Invalid URL (GET /api/usage/token/)"}}', json);
    expect(await fetchKeyQuota(testClient(older.transport))).toEqual({ state: 'none', reason: 'the gateway has no token endpoint' });
    const device = mockGateway();
    expect(await fetchKeyQuota(testClient(device.transport, { credential: { kind: 'device-token', secret: 'dt-0123456789' } }))).toEqual({ state: 'none', reason: 'signed in with a device token (no key)' });
    unlimited.done();
    older.done();
  });

  it('is unknown when rate limited (never a zero), and a gate on it ends as rate limited', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(429, '{"error":{"message":"slow down"}}', { headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '5' } });
    const figure = await fetchKeyQuota(testClient(gw.transport, { sleep: async () => undefined }));
    expect(figure.state).toBe('unknown');
    expect(keyQuotaJson(figure)).toBeNull();
    if (figure.state !== 'unknown') throw new Error('unreachable');
    expect(figure.failure).toBe('rate_limit');
    expect(quotaReadError(figure).kind).toBe('rate_limit');
  });

  it('is looked for in its cache once the requests asked beside it are on their way (asked first, it still goes second)', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"12.50","lifetime_spend":"80.00","plan":{"has_active_plan":false},"api_key":null}', json);
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, record('"total_granted":50,"total_used":10,"total_available":40,"unlimited_quota":false'), json);
    const asked: string[] = [];
    const transport: Transport = (request) => {
      asked.push(request.url.pathname);
      return gw.transport(request);
    };
    const { ctx } = testContext({ transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    // Where the quota's memory is (its cache: read and checked before the gateway is asked).
    const stateDir = ctx.stateDir.bind(ctx);
    ctx.stateDir = () => (asked.push('the state folder'), stateDir());
    const [quota] = await Promise.all([keyQuotaOf(ctx), balanceOf(ctx)]);
    expect(keyQuotaJson(quota)).toEqual({ remaining: '40', granted: '50', used: '10', currency: 'CNY' });
    // The first look at the state folder is the settings' (the client's profile); the quota's comes after the balance is asked.
    expect(asked).toEqual(['the state folder', '/v1/open/balance', 'the state folder', '/api/usage/token/']);
    gw.done();
  });

  it('is remembered for a few minutes: asked once for two reads', async () => {
    const state = tempDir();
    try {
      const memory = { stateDir: async () => state.path, now: () => Date.UTC(2026, 10, 28, 12) };
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, record('"total_granted":50,"total_used":10,"total_available":40,"unlimited_quota":false'), json);
      const first = await fetchKeyQuota(testClient(gw.transport), memory);
      const second = await fetchKeyQuota(testClient(gw.transport), memory);
      expect(keyQuotaJson(second)).toEqual(keyQuotaJson(first));
      expect(keyQuotaJson(second)).toEqual({ remaining: '40', granted: '50', used: '10', currency: 'CNY' });
      gw.done();
    } finally {
      state.remove();
    }
  });

  it('a remembered failure spares a view a repeat request, but a gate asks again', async () => {
    const state = tempDir();
    try {
      const memory = { stateDir: async () => state.path, now: () => Date.UTC(2026, 10, 28, 12) };
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/usage/token/' }).reply(503, '{"error":{"message":"upstream down"}}', json);
      const failed = await fetchKeyQuota(testClient(gw.transport, { sleep: async () => undefined }), memory);
      expect(failed.state).toBe('unknown');
      // A view: the remembered failure, no request (an interceptor left would answer it).
      expect((await fetchKeyQuota(testClient(gw.transport), memory)).state).toBe('unknown');
      gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, record('"total_granted":50,"total_used":10,"total_available":40,"unlimited_quota":false'), json);
      expect(keyQuotaJson(await fetchKeyQuota(testClient(gw.transport), memory, { forGate: true }))).toEqual({ remaining: '40', granted: '50', used: '10', currency: 'CNY' });
      gw.done();
    } finally {
      state.remove();
    }
  });
});
