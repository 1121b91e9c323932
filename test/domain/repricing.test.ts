import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PriceRow } from '../../src/domain/catalog.js';
import { commonRatio, reprice, tokenFields, usagePerModel } from '../../src/domain/repricing.js';
import { Decimal } from '../../src/domain/money.js';
import { parseJson, type JsonObject } from '../../src/domain/json.js';

const row = (input: string, output: string, other: { name: string; value: string }[] = [], perToken = true): PriceRow => ({ name: 'm', vendor: '', vendorKeys: [], types: [], groups: [], billingMode: perToken ? 'per_token' : 'per_call', perToken, input, output, cacheRead: '', other });
const usage = (amount?: string, input?: number, output?: number) => ({ amount: amount === undefined ? undefined : new Decimal(amount), input: input === undefined ? undefined : new Decimal(input), output: output === undefined ? undefined : new Decimal(output) });

describe('reprice', () => {
  it('prices tokens at both rows, exactly', () => {
    const r = reprice(usage('1', 100_000, 20_000), row('0.00875', '0.07'), row('0.01', '0.08'));
    expect(r).toMatchObject({ basis: 'tokens' });
    expect(r.before!.toFixed()).toBe('2.275');
    expect(r.after!.toFixed()).toBe('2.6');
  });

  it('scales an amount by the one ratio every price changed by, and says it cannot when they differ', () => {
    const scaled = reprice(usage('10'), row('0.01', '0.04'), row('0.015', '0.06'));
    expect(scaled.basis).toBe('scaled');
    expect(scaled.after!.toFixed()).toBe('15');
    expect(reprice(usage('10'), row('0.01', '0.04'), row('0.015', '0.05'))).toEqual({ basis: 'unknown', before: null, after: null, why: 'no tokens per model, and its prices did not change by one ratio' });
    expect(reprice(usage(undefined), row('0.01', '0.04'), row('0.02', '0.08'))).toMatchObject({ basis: 'unknown', before: null, after: null });
    const perCall = reprice(usage('3'), row('', '', [{ name: 'price_per_call', value: '0.3' }], false), row('', '', [{ name: 'price_per_call', value: '0.45' }], false));
    expect(perCall.after!.toFixed()).toBe('4.5');
  });

  it('never takes a price it cannot read as free: a price the catalog does not state (or states as an object), or another billing mode, cannot be computed', () => {
    const tokens = { amount: new Decimal('1'), input: new Decimal('1000'), output: new Decimal('500') };
    // The new catalog's output price is an object tally cannot read: it reaches the row as ''.
    expect(reprice(tokens, row('0.01', '0.04'), row('0.01', ''))).toEqual({ basis: 'unknown', before: null, after: null, why: "the catalog states no price tally can read for m's output price" });
    // Per call against per token: the two cannot be set against each other.
    const perCall = reprice(tokens, row('0.01', '0.04'), row('', '', [{ name: 'price_per_call', value: '0.3' }], false));
    expect(perCall.basis).toBe('unknown');
    expect(perCall.why).toMatch(/billed per price_per_call .* per token: the prices cannot be set against each other/);
    // Scaled by a ratio only when every price billed at is readable on both sides.
    expect(reprice({ amount: new Decimal('2'), input: undefined, output: undefined }, row('0.01', '0.04'), row('0.02', ''))).toMatchObject({ basis: 'unknown', before: null, after: null });
    // An input-only model (embeddings): no output tokens, no output price needed.
    expect(reprice({ amount: new Decimal('1'), input: new Decimal('1000'), output: new Decimal('0') }, row('0.01', ''), row('0.02', '')).after!.toFixed()).toBe('0.02');
  });

  it('changes nothing at the same prices, and is linear in the tokens (property)', () => {
    const price = fc.integer({ min: 0, max: 1_000_000 }).map((n) => new Decimal(n).div(1e8).toFixed(8));
    fc.assert(
      fc.property(price, price, price, price, fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 1, max: 100 }), (a, b, c, e, input, output, k) => {
        const same = reprice(usage('1', input, output), row(a, b), row(a, b));
        expect(same.after!.eq(same.before!)).toBe(true);
        const one = reprice(usage('1', input, output), row(a, b), row(c, e));
        const many = reprice(usage('1', input * k, output * k), row(a, b), row(c, e));
        expect(many.after!.eq(one.after!.mul(k))).toBe(true);
        expect(many.before!.eq(one.before!.mul(k))).toBe(true);
      }),
    );
  });

  it('finds no common ratio where a free price becomes paid', () => {
    expect(commonRatio(row('0', '0.01'), row('0.001', '0.02'))).toBeUndefined();
    expect(commonRatio(row('0', '0.01'), row('0', '0.02'))!.toFixed()).toBe('2');
  });
});

describe('usage per model', () => {
  it('discovers the token fields of either naming and adds every record of a model up', () => {
    for (const [inName, outName] of [['prompt_tokens', 'completion_tokens'], ['input_tokens', 'output_tokens'], ['tokensIn', 'tokensOut']] as [string, string][]) {
      const records = parseJson(JSON.stringify([
        { name: 'gpt-5', [inName]: 1000, [outName]: 200, cost: '0.02275000', total_tokens: 1200 },
        { name: 'gpt-5', [inName]: 500, [outName]: 100, cost: '0.01137500', total_tokens: 600 },
      ])) as JsonObject[];
      const fields = tokenFields(records);
      if (inName !== 'tokensIn') expect(fields).toEqual({ input: inName, output: outName });
      const per = usagePerModel(records, { model: 'name', spend: 'cost' }).get('gpt-5')!;
      expect(per.amount!.toFixed()).toBe('0.03412500'.replace(/0+$/, ''));
      if (inName !== 'tokensIn') {
        expect(per.input!.toFixed()).toBe('1500');
        expect(per.output!.toFixed()).toBe('300');
      }
    }
  });
});
