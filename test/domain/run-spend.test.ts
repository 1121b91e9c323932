import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSpend } from '../../src/domain/run-spend.js';

describe('runSpend', () => {
  const mark = { lifetimeSpend: '100.00000000', key: { dailyCostUsed: '2.50000000', day: 1000 } };
  it('uses the key counter on the same grid day, exactly', () => {
    expect(runSpend(mark, { lifetimeSpend: '104.00000000', key: { dailyCostUsed: '3.75000001', day: 1000 } })).toMatchObject({ basis: 'key' });
    expect(runSpend(mark, { lifetimeSpend: '104.00000000', key: { dailyCostUsed: '3.75000001', day: 1000 } }).spend.toFixed()).toBe('1.25000001');
  });
  it.each([
    ['another day', { lifetimeSpend: '104', key: { dailyCostUsed: '0.1', day: 87400 } }, 'day changed'],
    ['a counter that went down', { lifetimeSpend: '104', key: { dailyCostUsed: '1', day: 1000 } }, 'went down'],
    ['a device token', { lifetimeSpend: '104', key: null }, 'device token'],
  ])('falls back to the account on %s, and says why', (_name, now, why) => {
    const result = runSpend(mark, now);
    expect(result.basis).toBe('account');
    expect(result.spend.toFixed()).toBe('4');
    expect(result.why).toContain(why);
  });
  it('never goes below zero on the key basis, and is exact (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), (a, b) => {
        const text = (n: bigint) => `${n / 100000000n}.${String(n % 100000000n).padStart(8, '0')}`;
        const result = runSpend({ lifetimeSpend: '0', key: { dailyCostUsed: text(a), day: 0 } }, { lifetimeSpend: '0', key: { dailyCostUsed: text(b), day: 0 } });
        if (b >= a) expect([result.basis, result.spend.toFixed(8)]).toEqual(['key', text(b - a)]);
        else expect(result.basis).toBe('account');
      }),
    );
  });
});
