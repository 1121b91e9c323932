// The audit's arithmetic: expected charges from tokens or calls and the catalog's prices (a price
// or count it cannot read is unknown, never zero), and the tolerance rule (a departure is beyond
// both the share and the amount; its direction is the charge's side of the prices).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOLERANCE, expectedCharge, verdictOf } from '../../src/domain/audit.js';
import type { PriceRow } from '../../src/domain/catalog.js';
import { Decimal } from '../../src/domain/money.js';

const row = (over: Partial<PriceRow>): PriceRow => ({ name: 'm', vendor: '', vendorKeys: [], types: [], groups: [], billingMode: 'per_token', perToken: true, input: '0.002', output: '0.008', cacheRead: '0.0002', other: [], ...over });

describe('the expected charge', () => {
  it('prices tokens per 1,000 exactly', () => {
    const e = expectedCharge({ input: new Decimal(1500), output: new Decimal(250) }, row({}), 'm');
    expect(e).toEqual({ basis: 'tokens', amount: new Decimal('0.005') });
  });
  it('prices a per-call model by its calls, and leaves seconds, images and missing counts unknown', () => {
    const perCall = row({ perToken: false, billingMode: 'per_call', input: '', output: '', other: [{ name: 'per_call_price', value: '0.25' }] });
    expect(expectedCharge({ calls: new Decimal(4) }, perCall, 'm')).toEqual({ basis: 'calls', amount: new Decimal(1) });
    expect(expectedCharge({}, perCall, 'm').basis).toBe('unknown');
    expect(expectedCharge({ calls: new Decimal(1) }, row({ perToken: false, other: [{ name: 'price_per_second', value: '0.1' }] }), 'm').basis).toBe('unknown');
    expect(expectedCharge({ input: new Decimal(1), output: new Decimal(1) }, undefined, 'gone')).toEqual({ basis: 'unknown', why: 'the catalog does not list gone' });
    expect(expectedCharge({ input: new Decimal(1), output: new Decimal(1) }, row({ output: '' }), 'm')).toMatchObject({ basis: 'unknown', why: 'the catalog states no output price for m' });
  });
});

describe('the tolerance', () => {
  it('a charge departs only beyond both the share and the amount, on its own side of the prices (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: -1_000_000, max: 1_000_000 }), (expectedUnits, deltaUnits) => {
        const expected = new Decimal(expectedUnits).div(1e6);
        const charged = expected.plus(new Decimal(deltaUnits).div(1e6));
        const v = verdictOf(charged, expected, DEFAULT_TOLERANCE);
        const diff = charged.minus(expected).abs();
        const beyond = diff.gt('0.0001') && (expected.isZero() ? !diff.isZero() : diff.div(expected).mul(100).gt('0.5'));
        expect(v).toBe(beyond ? (charged.gt(expected) ? 'above' : 'below') : 'match');
      }),
    );
  });
  it('0.5% of ¥0.01 is within ¥0.0001: a match; ¥1 off ¥100 is 1%: above', () => {
    expect(verdictOf(new Decimal('0.01005'), new Decimal('0.01'), DEFAULT_TOLERANCE)).toBe('match');
    expect(verdictOf(new Decimal('101'), new Decimal('100'), DEFAULT_TOLERANCE)).toBe('above');
    expect(verdictOf(new Decimal('99'), new Decimal('100'), DEFAULT_TOLERANCE)).toBe('below');
  });
});
