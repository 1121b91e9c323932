// What `status` shows, as a figure (figures/status.ts), against a mock gateway with literal
// amounts: the last seven days cut from the forecast's day series (totals added exactly), the
// week's top models by spend (every record of a model added up, under field names of the
// gateway's own), today's spike against the days before it, and no budgets line without budgets.
import { describe, expect, it } from 'vitest';
import { loadStatus, statusJson } from '../../src/figures/status.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 21, 0); // 27 November 2026, 21:00 UTC
const DAY = 86_400;
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

/** ¥3 a day on UTC's days, and today: `today`. Spend per model over the week: two records of one model. */
function gateway(today: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"300.00","lifetime_spend":"900.00","plan":{"has_active_plan":false},"api_key":{"name":"ci","prefix":"sk-ci","daily_cost_limit":"100.00","daily_cost_used":"4.00"}}', json);
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json);
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      const [start, end] = [Number(url.searchParams.get('start')), Number(url.searchParams.get('end'))];
      const buckets = [];
      for (let t = Math.ceil(start / DAY) * DAY; t < Math.min(end, NOW / 1000); t += DAY) buckets.push({ day: t, n: 4, rmb: t + DAY > NOW / 1000 ? today : '3.00' });
      return { statusCode: 200, data: JSON.stringify({ buckets, totals: {} }), responseOptions: json };
    });
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') })
    .reply(200, JSON.stringify({ scope: 'key', list: [{ name: 'kimi-k2', calls: 5, charge: '1.10' }, { name: 'glm-4.6', calls: 2, charge: '6.25' }, { name: 'kimi-k2', calls: 1, charge: '0.40' }, { name: 'qwen-max', calls: 1, charge: '0.00' }] }), json);
  return gw;
}

describe('status', () => {
  it('the last seven days with their total, and the week\'s models by spend, records of a model added up', async () => {
    const gw = gateway('4.00');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const doc = statusJson(await loadStatus(ctx, {}));
    expect(doc.usage.buckets).toHaveLength(7);
    // Six days of ¥3 and today's ¥4.
    expect(String(doc.usage.totals.rmb)).toBe('22.00');
    expect(doc.top_models.map((m) => [m.name, String(m.charge), String(m.calls)])).toEqual([
      ['glm-4.6', '6.25', '2'],
      ['kimi-k2', '1.50', '6'],
      ['qwen-max', '0.00', '1'],
    ]);
    expect(doc.alert).toBeNull();
    expect('budgets' in doc).toBe(false);
    gw.done();
  });

  it("today's spend far above the days before it is an alert: the amount, the baseline and the ratio", async () => {
    const gw = gateway('30.00');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const doc = statusJson(await loadStatus(ctx, {}));
    expect(doc.alert).toEqual({ kind: 'spike', start: Date.UTC(2026, 10, 27) / 1000, amount: '30', baseline: '3', ratio: '10' });
  });
});
