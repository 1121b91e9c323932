// The balance and the key's daily counter as a figure of the run (figures/balance.ts): literal
// amounts as the gateway states them (never through a float), unknown fields kept for --json, a
// device token's record without a key, asked once a computation whoever asks, and again by the
// next computation (a --watch round, a poll): nothing kept across.
import { describe, expect, it } from 'vitest';
import { balanceOf } from '../../src/figures/balance.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const json = { headers: { 'content-type': 'application/json' } };
const record = (apiKey: string) => `{"currency":"CNY","balance":"1234.56789012","lifetime_spend":"98765.43210987","plan":{"has_active_plan":false},"api_key":${apiKey},"region":"cn-east"}`;

describe('the balance', () => {
  it('states the amounts to the digit, with the key\'s daily limit and what it used, and keeps fields it does not know', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, record('{"name":"ci","prefix":"sk-ci","daily_cost_limit":"50.00","daily_cost_used":"12.34567891"}'), json);
    const { ctx } = testContext({ transport: gw.transport, env });
    const balance = await balanceOf(ctx);
    expect({ currency: balance.currency, balance: balance.balance.toFixed(), spend: balance.lifetimeSpend.toFixed(), plan: balance.hasActivePlan }).toEqual({ currency: 'CNY', balance: '1234.56789012', spend: '98765.43210987', plan: false });
    expect({ name: balance.apiKey?.name, limit: balance.apiKey?.dailyLimit?.toFixed(), used: balance.apiKey?.dailyUsed?.toFixed() }).toEqual({ name: 'ci', limit: '50', used: '12.34567891' });
    expect(balance.raw.region).toBe('cn-east');
  });

  it('has no key under a device token (api_key null): no daily limit, never a zero one', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, record('null'), json);
    const { ctx } = testContext({ transport: gw.transport, env });
    expect((await balanceOf(ctx)).apiKey).toBeNull();
  });

  it('is asked once however many parts of a run ask for it, and again by the next computation', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, record('null'), json).times(2);
    const { ctx } = testContext({ transport: gw.transport, env });
    const [a, b] = await Promise.all([balanceOf(ctx), balanceOf(ctx)]);
    expect(b).toBe(a);
    ctx.renewDeadline();
    const again = await balanceOf(ctx);
    expect(again).not.toBe(a);
    expect(again.balance.toFixed()).toBe('1234.56789012');
    gw.done();
  });

  it('a record whose amount is a JSON number is refused, never read through a float', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, '{"currency":"CNY","balance":1234.5,"lifetime_spend":"1","plan":{"has_active_plan":false},"api_key":null}', json);
    const { ctx } = testContext({ transport: gw.transport, env });
    await expect(balanceOf(ctx)).rejects.toMatchObject({ kind: 'service' });
  });
});
