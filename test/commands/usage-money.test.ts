// One reading of usage money for every consumer: exact, or a clear refusal. Money sent as JSON
// numbers is refused by forecast, budgets and every check alike (never read as zero), and two
// different buckets for one hour are refused, never added up twice.
import { describe, expect, it } from 'vitest';
import { GW, KEY, freshState, mockGateway, runCommand } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const NOW = Date.UTC(2026, 10, 20, 12);
const balance = '{"currency": "CNY", "balance": "100.00000000", "lifetime_spend": "10.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "k", "prefix": "k", "daily_cost_limit": null, "daily_cost_used": "1.00000000"}}';

function gateway(usage: (url: URL) => string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance, json).persist();
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json).persist();
  gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply((options) => ({ statusCode: 200, data: usage(new URL(String(options.path), GW)), responseOptions: json })).persist();
  return gw;
}

/** Hour or day buckets over the asked window, each a call costing `cost` (a JSON number, or text). */
function buckets(url: URL, cost: string, duplicate: 'none' | 'same' | 'different' = 'none'): string {
  const size = url.searchParams.get('bucket') === 'hour' ? 3600 : 86_400;
  const start = Number(url.searchParams.get('start'));
  const end = Number(url.searchParams.get('end'));
  const list: string[] = [];
  for (let t = start; t < end; t += size) list.push(`{"t": ${t}, "n": 1, "cost": ${cost}}`);
  if (duplicate === 'different' && list.length > 1) list.push(`{"t": ${start + size}, "n": 2, "cost": ${cost}}`);
  if (duplicate === 'same' && list.length > 1) list.push(list[1]!);
  return `{"buckets": [${list.join(',')}], "totals": {"n": ${list.length}, "cost": ${cost}}}`;
}

describe('usage money read one way by every consumer', () => {
  it('refuses money sent as JSON numbers in forecast, budgets and check alike (exit 1), never a zero', async () => {
    const state = freshState();
    const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state, TZ: 'UTC' };
    expect((await runCommand(['budget', 'set', 'monthly', '--amount', '50', '--period', 'month'], { env })).code).toBe(0);
    for (const args of [['forecast'], ['budget'], ['check', '--budget', 'monthly'], ['check', '--max-spend', '5'], ['check', '--min-runway', '3']]) {
      const result = await runCommand(args, { transport: gateway((url) => buckets(url, '0.5')).transport, env, now: () => NOW });
      expect([args, result.code]).toEqual([args, 1]);
      expect(result.stderr).toContain('the usage buckets hold no decimal amount');
      expect(result.stdout).not.toMatch(/spent ¥0|actual ¥0\.00/);
    }
  });

  it('refuses two different buckets for one hour instead of counting it twice; the same bucket sent twice counts once', async () => {
    const state = freshState();
    const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state, TZ: 'UTC' };
    expect((await runCommand(['budget', 'set', 'daily', '--amount', '50', '--period', 'day'], { env })).code).toBe(0);
    const twice = await runCommand(['budget', '--json'], { transport: gateway((url) => buckets(url, '"0.50000000"', 'different')).transport, env, now: () => NOW });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('two different usage buckets for');
    const once = await runCommand(['budget', '--json'], { transport: gateway((url) => buckets(url, '"0.50000000"', 'same')).transport, env, now: () => NOW });
    expect(once.code).toBe(0);
    // The 12 hours of the day gone by and the current one, as the gateway reports it: one call of ¥0.50 each.
    expect(JSON.parse(once.stdout).budgets[0].spent).toBe('6.5');
  });
});
