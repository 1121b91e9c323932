// The compatible billing figures beside the native balance (figures/billing.ts): soft_limit_usd
// against balance + lifetime spend, total_usage / 100 against lifetime spend, with literal
// amounts at the ledger's 8 places; a limit that is not the account's is said as not matching.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };

function gateway(softLimit: string, totalUsage: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":"70.25000000","lifetime_spend":"29.75000000","plan":{"has_active_plan":false},"api_key":null}', json);
  gw.pool.intercept({ path: '/dashboard/billing/subscription' }).reply(200, `{"object":"billing_subscription","has_payment_method":true,"soft_limit_usd":${softLimit},"hard_limit_usd":${softLimit},"system_hard_limit_usd":${softLimit},"access_until":0}`, json);
  gw.pool.intercept({ path: (p: string) => p.startsWith('/dashboard/billing/usage') }).reply(200, `{"object":"list","total_usage":${totalUsage}}`, json);
  gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{"error":{"message":"Invalid URL (GET /api/usage/token/)"}}', json).persist();
  return gw;
}

describe('billing --compare', () => {
  it('agrees where soft_limit_usd is balance + lifetime spend and total_usage / 100 the lifetime spend', async () => {
    const out = await runCommand(['billing', '--compare', '--json'], { transport: gateway('100', '2975').transport, env });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).compare).toEqual({
      native_balance: '70.25000000',
      native_lifetime_spend: '29.75000000',
      native_total: '100.00000000',
      soft_limit: '100.00000000',
      matches: true,
      usage_yuan: '29.75000000',
      usage_is_account_spend: true,
    });
  });

  it('says where they part: a limit of another total, a usage of another spend', async () => {
    const out = await runCommand(['billing', '--compare', '--json'], { transport: gateway('120.5', '1000').transport, env });
    const comparison = JSON.parse(out.stdout).compare;
    expect({ soft_limit: comparison.soft_limit, matches: comparison.matches, usage_yuan: comparison.usage_yuan, usage_is_account_spend: comparison.usage_is_account_spend }).toEqual({ soft_limit: '120.50000000', matches: false, usage_yuan: '10.00000000', usage_is_account_spend: false });
  });
});
