// What this key may spend (figures/key-allowance.ts): today against its daily limit (used, left,
// the share), its own quota, and that quota where it can be set against the balance; literal
// amounts, never a zero for what is not stated, and the balance and the quota each asked once
// a computation whoever asks.
import { describe, expect, it } from 'vitest';
import { readBalance } from '../../src/api/balance.js';
import { allowanceOf, dailyAllowance, keyAllowanceOf } from '../../src/figures/key-allowance.js';
import { Decimal } from '../../src/domain/money.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const balanceRecord = (apiKey: string, currency = 'CNY') => `{"currency":"${currency}","balance":"80.00","lifetime_spend":"420.00","plan":{"has_active_plan":true},"api_key":${apiKey}}`;
const tokenRecord = (fields: string) => `{"object":"token_usage","name":"eval",${fields},"currency":"CNY"}`;
const text = (d: Decimal | undefined) => d?.toFixed();
const daily = (limit: string | undefined, used: string | undefined) => dailyAllowance({ dailyLimit: limit === undefined ? undefined : new Decimal(limit), dailyUsed: used === undefined ? undefined : new Decimal(used) });

describe("the key's day", () => {
  it('states what is used, what is left and the share of the limit, exactly', () => {
    const d = daily('50.00', '12.34567891')!;
    expect([text(d.used), text(d.limit), text(d.left), text(d.share)]).toEqual(['12.34567891', '50', '37.65432109', '0.2469135782']);
  });

  it('leaves nothing below zero once the limit is passed, and a share above one', () => {
    const d = daily('10', '12.5')!;
    expect([text(d.left), text(d.share)]).toEqual(['0', '1.25']);
  });

  it('has no share of a zero limit or of none, and states nothing it was not told', () => {
    expect([text(daily('0', '3')!.share), text(daily('0', '3')!.left)]).toEqual([undefined, '0']);
    expect(daily(undefined, '3')).toEqual({ used: new Decimal(3), limit: undefined, left: undefined, share: undefined });
    expect(daily('20', undefined)).toEqual({ used: undefined, limit: new Decimal(20), left: undefined, share: undefined });
    // A device token: no key, no key-level limit (never a zero one).
    expect(dailyAllowance(null)).toBeUndefined();
  });
});

describe('what this key may spend', () => {
  it("sets the key's quota against the balance only where it is stated in the balance's unit", () => {
    const quota = { state: 'quota' as const, quota: { remaining: new Decimal('187.65'), granted: new Decimal(200), used: new Decimal('12.35'), currency: 'CNY' } };
    expect(text(allowanceOf(readBalance(JSON.parse(balanceRecord('null'))), quota).comparableQuota?.remaining)).toBe('187.65');
    const units = { state: 'quota' as const, quota: { ...quota.quota, currency: undefined } };
    const held = allowanceOf(readBalance(JSON.parse(balanceRecord('null'))), units);
    expect([held.comparableQuota, held.quota.state, held.daily]).toEqual([undefined, 'quota', undefined]);
    expect(allowanceOf(readBalance(JSON.parse(balanceRecord('null', 'USD'))), quota).comparableQuota).toBeUndefined();
  });

  it('asks the balance and the token record once for the computation, whoever asks; without the quota when told', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balanceRecord('{"name":"eval","daily_cost_limit":"30","daily_cost_used":"7.5"}'), json);
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, tokenRecord('"total_granted":100,"total_used":40,"total_available":60,"unlimited_quota":false'), json);
    const { ctx } = testContext({ transport: gw.transport, env, demo: false });
    const [a, b] = await Promise.all([keyAllowanceOf(ctx), keyAllowanceOf(ctx)]);
    expect([text(a.daily?.left), text(a.daily?.share), text(a.comparableQuota?.remaining), a.currency]).toEqual(['22.5', '0.25', '60', 'CNY']);
    expect(text(b.comparableQuota?.remaining)).toBe('60');
    gw.done();
    const without = await keyAllowanceOf(ctx, { quota: false });
    expect([without.quota.state, text(without.daily?.used)]).toEqual(['none', '7.5']);
  });
});
