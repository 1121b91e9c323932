import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { forecast } from '../../src/domain/forecast.js';
import { Decimal, derivedText as ledgerText } from '../../src/domain/money.js';

const D = 86400;
const at = (y: number, m: number, d: number, h = 0) => Date.UTC(y, m - 1, d, h) / 1000;
const days = (start: number, amounts: string[]) => amounts.map((amount, i) => ({ day: start + i * D, spend: new Decimal(amount) }));

describe('forecast', () => {
  // 2026-11-21 18:00 UTC: three quarters of Saturday gone; the basis is Nov 14-20.
  const now = at(2026, 11, 21, 18);
  const week = days(at(2026, 11, 14), ['10', '12.5', '0', '7.25', '9', '11', '20.25']);

  it('averages the complete days, and says how long the balance lasts and when it runs out', () => {
    const f = forecast({ balance: new Decimal('700'), days: [...week, { day: at(2026, 11, 21), spend: new Decimal('3') }], basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(f.basis).toEqual({ days: 7, start: at(2026, 11, 14), end: at(2026, 11, 21), spend: new Decimal('70') });
    expect(f.averageDailySpend.toFixed()).toBe('10');
    expect(f.runwayDays?.toFixed()).toBe('70');
    // Now plus 70 days: 2027-01-30 18:00, on that day.
    expect(f.runsOutOn).toBe(at(2027, 1, 30));
    expect(f.today).toBeNull();
  });

  it('adds the month so far (today included) and projects it to the month end at the average pace', () => {
    const f = forecast({ balance: new Decimal('700'), days: [{ day: at(2026, 10, 31), spend: new Decimal('99') }, ...week, { day: at(2026, 11, 21), spend: new Decimal('3') }], basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(f.monthToDate.toFixed()).toBe('73');
    // 9.25 days left in November: 73 + 10 x 9.25.
    expect(f.projectedMonthEnd.toFixed()).toBe('165.5');
  });

  it('gives no runway and no date when nothing was spent', () => {
    const f = forecast({ balance: new Decimal('5'), days: [], basisDays: 7, now, dayOffset: 0, today: { used: new Decimal('0'), limit: new Decimal('50') } });
    expect([f.runwayDays, f.runsOutOn, f.averageDailySpend.toFixed()]).toEqual([null, null, '0']);
    expect(f.today).toEqual({ used: new Decimal('0'), limit: new Decimal('50'), projected: new Decimal('0'), limitReachedAt: null });
  });

  it('projects today to the end of the day, and says when the limit is reached at today\'s pace', () => {
    // 18 hours gone, 30 spent of a 35 limit: 40 by midnight; the limit at 21:00.
    const f = forecast({ balance: new Decimal('100'), days: week, basisDays: 7, now, dayOffset: 0, today: { used: new Decimal('30'), limit: new Decimal('35') } });
    expect(f.today!.projected!.toFixed()).toBe('40');
    expect(f.today!.limitReachedAt).toBe(at(2026, 11, 21, 21));
    const slow = forecast({ balance: new Decimal('100'), days: week, basisDays: 7, now, dayOffset: 0, today: { used: new Decimal('3'), limit: new Decimal('35') } });
    expect(slow.today!.limitReachedAt).toBeNull();
    const noLimit = forecast({ balance: new Decimal('100'), days: week, basisDays: 7, now, dayOffset: 0, today: { used: new Decimal('3'), limit: undefined } });
    expect(noLimit.today).toEqual({ used: new Decimal('3'), limit: null, projected: new Decimal('4'), limitReachedAt: null });
  });

  it('keeps a runway no double holds exactly, and names no date past 9999-12-31', () => {
    // ¥1,000 at ¥0.00007 a week: about 10^8 days, past the year 9999.
    const tiny = days(at(2026, 11, 14), ['0.00001', '0.00001', '0.00001', '0.00001', '0.00001', '0.00001', '0.00001']);
    const f = forecast({ balance: new Decimal('1000'), days: tiny, basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(f.runwayDays?.toFixed()).toBe('100000000');
    expect(f.runsOutOn).toBeNull();
    const huge = forecast({ balance: new Decimal('1e100'), days: tiny, basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(huge.runwayDays?.toFixed()).toBe(`1${'0'.repeat(105)}`);
    // Within the calendar, the date is given.
    const near = forecast({ balance: new Decimal('10'), days: tiny, basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(near.runwayDays?.toFixed()).toBe('1000000');
    expect(near.runsOutOn).toBe(at(2026, 11, 21) + 1_000_000 * D);
    expect(new Date(near.runsOutOn! * 1000).toISOString().slice(0, 10)).toBe('4764-10-18');
  });

  it('lays days on the gateway grid (UTC+8)', () => {
    const f = forecast({ balance: new Decimal('1'), days: [], basisDays: 2, now, dayOffset: 8 * 3600, today: undefined });
    // 18:00 UTC is 02:00 on Sunday in UTC+8: the basis is Friday and Saturday there.
    expect(f.basis.start).toBe(at(2026, 11, 19, 16));
    expect(f.basis.end).toBe(at(2026, 11, 21, 16));
  });

  it('rounds the runway down and never beyond what the balance pays for (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 7, maxLength: 7 }), fc.bigInt({ min: 0n, max: 10n ** 14n }), (cents, balanceCents) => {
        const spend = cents.map((c) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`);
        const balance = new Decimal(`${balanceCents / 100n}.${String(balanceCents % 100n).padStart(2, '0')}`);
        const f = forecast({ balance, days: days(at(2026, 11, 14), spend), basisDays: 7, now, dayOffset: 0, today: undefined });
        if (f.averageDailySpend.isZero()) return f.runwayDays === null;
        const days_ = new Decimal(f.runwayDays!);
        return f.averageDailySpend.mul(days_).lte(balance) && f.averageDailySpend.mul(days_.plus(1)).gt(balance);
      }),
      { numRuns: 500 },
    );
    expect(ledgerText(new Decimal(1).div(3))).toBe('0.33333333');
  });
});
