// The one rounding of a derived amount (domain/money.ts derived): 8 places, half up (away from
// zero at the half), never more places than the ledger's, exact below them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DERIVED_PLACES, Decimal, derived, derivedText } from '../../src/domain/money.js';

describe('a derived amount', () => {
  it('keeps 8 places, half up', () => {
    expect(derivedText(new Decimal('0.123456785'))).toBe('0.12345679');
    expect(derivedText(new Decimal('0.123456784999'))).toBe('0.12345678');
    expect(derivedText(new Decimal('-0.000000005'))).toBe('-0.00000001');
    expect(derivedText(new Decimal('10').div(3))).toBe('3.33333333');
    expect(derivedText(new Decimal('1.5'))).toBe('1.5');
  });

  it('is within half a place of the exact amount, has at most 8 places, and leaves an 8-place amount as it is', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }), (units, places) => {
        const exact = new Decimal(units.toString()).div(new Decimal(10).pow(places));
        const d = derived(exact);
        expect(d.decimalPlaces()).toBeLessThanOrEqual(DERIVED_PLACES);
        expect(d.minus(exact).abs().lte(new Decimal('0.000000005'))).toBe(true);
        expect(derived(d).eq(d)).toBe(true);
      }),
    );
  });
});
