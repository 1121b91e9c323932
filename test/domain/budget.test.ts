// A budget's amount as written: yuan, or another currency beside the number (compared in yuan
// at the day's rate); and a stored one read back with its currency checked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountInYuan, budgetMeasure, checkBudget, makeBudget, parseAmountIn } from '../../src/domain/budget.js';
import { Decimal } from '../../src/domain/money.js';
import { UsageError } from '../../src/errors.js';

describe('--amount in a currency', () => {
  it.each([
    ['500', { amount: '500' }],
    ['1,000.50', { amount: '1000.5' }],
    ['100 USD', { amount: '100', currency: 'USD' }],
    ['100usd', { amount: '100', currency: 'USD' }],
    ['EUR 12.5', { amount: '12.5', currency: 'EUR' }],
    ['jpy12000', { amount: '12000', currency: 'JPY' }],
    ['88 CNY', { amount: '88' }],
  ])('reads %j', (text, read) => {
    expect(parseAmountIn(text)).toEqual(read);
  });

  it.each([
    ['100 XYZ', /XYZ is not an ISO 4217 currency code/],
    ['USD 100 EUR', /is not a positive amount in yuan/],
    ['0 USD', /is not a positive amount in USD/],
    ['1e5', /is not a positive amount in yuan/],
    ['USD', /is not a positive amount in USD/],
  ])('refuses %j', (text, why) => {
    expect(() => parseAmountIn(text)).toThrow(UsageError);
    expect(() => parseAmountIn(text)).toThrow(why);
  });

  it('stores the currency with the budget, and its measure names the amount as set (a raise is a new figure)', () => {
    const budget = makeBudget({ amount: '100 USD', period: 'month', zone: 'UTC' });
    expect(budget).toEqual({ amount: '100', currency: 'USD', period: 'month', starts: 1, zone: 'UTC', scope: 'account' });
    expect(budgetMeasure(budget)).not.toBe(budgetMeasure({ ...budget, amount: '120' }));
    const { currency: _c, ...inYuan } = budget;
    expect(budgetMeasure({ ...inYuan, amount: '120' })).toBe(budgetMeasure(inYuan));
  });

  it('reads a stored currency back only as a code other than CNY', () => {
    const stored = { amount: '100', period: 'day', zone: 'UTC' };
    expect(checkBudget('b', { ...stored, currency: 'EUR' }).currency).toBe('EUR');
    for (const currency of ['CNY', 'eur', 'EURO', 7, '']) expect(() => checkBudget('b', { ...stored, currency })).toThrow(/its currency is not an ISO 4217 code other than CNY/);
  });

  it('is in yuan at the rate to the ledger\'s 8 places, and back at the same rate within half a unit of the 8th place', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 1, max: 10 ** 7 }), (cents, rateUnits) => {
        const amount = new Decimal(cents).div(100).toFixed();
        const rate = new Decimal(rateUnits).div(10 ** 5).toFixed();
        const yuan = amountInYuan({ amount, currency: 'USD', period: 'day', zone: 'UTC' }, rate);
        expect(yuan).toMatch(/^\d+(\.\d{1,8})?$/);
        expect(new Decimal(yuan).minus(new Decimal(amount).div(rate)).abs().lte('0.000000005')).toBe(true);
      }),
    );
  });
});
