// What `tally metrics` exports for a profile (figures/metrics.ts), against a mock gateway: the
// forecast's figures and the key's spend today per model, the ten largest with series of their
// own and the rest added up exactly as `other` (a bounded number of series); a profile whose
// gateway fails is only its name (tally_up 0), never zeros.
import { describe, expect, it } from 'vitest';
import { figuresOf } from '../../src/figures/metrics.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';
import { stubKeyUsage } from '../support/usage-gateway.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

describe('metrics figures', () => {
  it("the key's spend today: ten models of their own, the rest as other", async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"80.00","lifetime_spend":"20.00","plan":{"has_active_plan":false},"api_key":{"name":"ci","prefix":"sk-ci","daily_cost_limit":"10.00","daily_cost_used":"1.00"}}', json);
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json);
    // Twelve models today: m-01 spent ¥0.01, m-02 ¥0.02, ... m-12 ¥0.12.
    stubKeyUsage(gw, Array.from({ length: 12 }, (_, i) => ({ model: `m-${String(i + 1).padStart(2, '0')}`, spend: `0.${String(i + 1).padStart(2, '0')}` })), NOW);
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const figures = await figuresOf(ctx, 'default');
    expect(figures.models?.map((m) => `${m.model} ${m.spend}`)).toEqual(['m-12 0.12', 'm-11 0.11', 'm-10 0.1', 'm-09 0.09', 'm-08 0.08', 'm-07 0.07', 'm-06 0.06', 'm-05 0.05', 'm-04 0.04', 'm-03 0.03', 'other 0.03']);
    expect(figures.loaded?.balance.balance.toFixed()).toBe('80');
    expect(figures.now).toBe(NOW / 1000);
    // The account's spend today: the day series' money on today's grid day, as the gateway wrote it.
    expect(figures.spendToday).toBe('1.00');
  });

  it('a profile whose gateway fails is only its name', async () => {
    // Every request fails, however often it is retried (loose: how many tries is the client's business).
    const gw = mockGateway(GW, { loose: true });
    gw.pool.intercept({ path: () => true }).reply(500, '{"error":"down"}', json).persist();
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    expect(await figuresOf(ctx, 'work')).toEqual({ profile: 'work' });
  });
});
