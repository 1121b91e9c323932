// The forecast as a figure (figures/forecast.ts), against a mock gateway with literal amounts:
// the pace of the complete days before today, the runway the balance gives at that pace, the
// month so far and where it ends at that pace, and today's key counter; all from one day series
// and the balance, to the digit.
import { describe, expect, it } from 'vitest';
import { forecastJson, loadForecast } from '../../src/figures/forecast.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0); // Friday 27 November 2026, 09:00 UTC
const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

/** Days of November on UTC's grid: ¥4 a day to the 19th, ¥10 a day from the 20th to the 26th, ¥3 so far today. */
function november() {
  const buckets = [];
  for (let d = 1; d <= 27; d++) buckets.push({ period_start: Date.UTC(2026, 10, d) / 1000, requests: 3, charged: d < 20 ? '4.00000000' : d < 27 ? '10.00000000' : '3.00000000' });
  return buckets;
}

function gateway(apiKey: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, `{"currency":"CNY","balance":"1000.00","lifetime_spend":"5000.00","plan":{"has_active_plan":false},"api_key":${apiKey}}`, json);
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/usage?') })
    .reply((request) => {
      const url = new URL(String(request.path), GW);
      const [start, end] = [Number(url.searchParams.get('start')), Number(url.searchParams.get('end'))];
      const buckets = november().filter((b) => b.period_start >= start && b.period_start < end);
      return { statusCode: 200, data: JSON.stringify({ buckets, totals: {} }), responseOptions: json };
    });
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{"error":{"message":"not found"}}', json);
  return gw;
}

describe('the forecast', () => {
  it('paces the seven complete days before today, and gives the runway and the month\'s end at that pace', async () => {
    const gw = gateway('{"name":"ci","prefix":"sk-ci","daily_cost_limit":"20.00","daily_cost_used":"3.00"}');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const doc = forecastJson(await loadForecast(ctx, { utcOffset: '+00:00' }));
    // ¥70 over the 20th to the 26th; ¥1,000 lasts 100 days from today (27 Nov + 100 days).
    expect(doc.basis).toMatchObject({ days: 7, start: Date.UTC(2026, 10, 20) / 1000, end: Date.UTC(2026, 10, 27) / 1000, spend: '70' });
    expect({ average: doc.average_daily_spend, runway: String(doc.runway_days), out: doc.runs_out_on, basis: doc.runway_basis }).toEqual({ average: '10', runway: '100', out: '2027-03-07', basis: 'balance' });
    // ¥149 so far (19 x 4 + 7 x 10 + 3); at ¥10 a day the 15 hours left of today and the 28th to the 30th add 36.25.
    expect({ month: doc.month_to_date, end: doc.projected_month_end }).toEqual({ month: '149', end: '185.25' });
    const range = doc.projected_month_end_range!;
    expect(Number(range.low)).toBeLessThan(Number(doc.projected_month_end));
    expect(Number(range.high)).toBeGreaterThan(Number(doc.projected_month_end));
    expect({ coverage: range.coverage, days: range.days }).toEqual({ coverage: '0.8', days: 30 });
    // The key's counter as sent; ¥3 by 09:00 is ¥8 by midnight, under its ¥20.
    expect(doc.today).toEqual({ used: '3.00', limit: '20.00', projected: '8', limit_reached_at: null });
    expect(doc.key_quota).toBeNull();
    gw.done();
  });

  it('a key that will reach its daily limit today says when, on the grid', async () => {
    const gw = gateway('{"name":"ci","prefix":"sk-ci","daily_cost_limit":"6.00","daily_cost_used":"3.00"}');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const doc = forecastJson(await loadForecast(ctx, { utcOffset: '+00:00' }));
    // ¥3 in 9 hours: ¥6 at 18:00.
    expect(doc.today).toEqual({ used: '3.00', limit: '6.00', projected: '8', limit_reached_at: '2026-11-27T18:00:00+00:00' });
  });

  it('a device token has no key counter: no today, the runway the same', async () => {
    const gw = gateway('null');
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const doc = forecastJson(await loadForecast(ctx, { utcOffset: '+00:00' }));
    expect(doc.today).toBeNull();
    expect(String(doc.runway_days)).toBe('100');
  });
});
