// The forecast's range and its backtest on synthetic series whose answer is known: a steady
// series (no spread: the range is the point, every week exact), a weekly pattern (the weekday
// factors carry it: the range's middle is exact where the flat pace is not), a step (the
// backtest's error shows in the week after it and then goes), a spike (one week missed, the
// others inside); and properties: the range holds its middle, is never below zero, and widens
// with the horizon.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type DayAmount, backtest, daysBetween, spendRange, sqrt, weekdayOf } from '../../src/domain/forecast-range.js';

const DAY = 86_400;
/** A Monday, 00:00 UTC. */
const MONDAY = Date.UTC(2026, 7, 3) / 1000;

function series(days: number, spend: (i: number, day: number) => string): DayAmount[] {
  return Array.from({ length: days }, (_, i) => ({ day: MONDAY + i * DAY, spend: new Decimal(spend(i, MONDAY + i * DAY)) }));
}

const whole = (start: number, n: number) => Array.from({ length: n }, (_, i) => ({ day: start + i * DAY, weight: new Decimal(1) }));

describe('the range', () => {
  it('is the point itself for a steady series: no spread', () => {
    const history = series(35, () => '12.5');
    const range = spendRange(history, 7, whole(MONDAY + 35 * DAY, 10), 0)!;
    expect(range).toMatchObject({ method: 'weekday', days: 35 });
    expect(range.expected.toFixed()).toBe('125');
    expect(range.low.toFixed()).toBe('125');
    expect(range.high.toFixed()).toBe('125');
  });

  it('carries a weekly pattern: weekdays 10, weekends 0 give a week of 50 exactly, with a narrow range; the flat rule with fewer than 4 weeks is wide', () => {
    const pattern = (_: number, day: number) => ([0, 6].includes(weekdayOf(day, 0)) ? '0' : '10');
    const history = series(28, pattern);
    const range = spendRange(history, 28, whole(MONDAY + 28 * DAY, 7), 0)!;
    expect(range.method).toBe('weekday');
    expect(range.expected.toFixed()).toBe('50');
    expect(range.high.minus(range.low).toNumber()).toBeLessThan(1e-6);
    const short = spendRange(series(21, pattern), 7, whole(MONDAY + 21 * DAY, 7), 0)!;
    expect(short.method).toBe('flat');
    expect(short.low.lt(50) && short.high.gt(50)).toBe(true);
  });

  it('is never below zero, holds its middle, and widens with the horizon (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 2, maxLength: 60 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 40 }), (cents, basis, ahead) => {
        const history = cents.map((c, i) => ({ day: MONDAY + i * DAY, spend: new Decimal(c).div(100) }));
        const start = MONDAY + cents.length * DAY;
        const a = spendRange(history, basis, whole(start, ahead), 0)!;
        const b = spendRange(history, basis, whole(start, ahead + 7), 0)!;
        expect(a.low.gte(0)).toBe(true);
        expect(a.low.lte(a.expected) && a.expected.lte(a.high)).toBe(true);
        expect(b.high.minus(b.expected).gte(a.high.minus(a.expected))).toBe(true);
      }),
    );
  });

  it('needs two days of history', () => {
    expect(spendRange(series(1, () => '1'), 7, whole(MONDAY + DAY, 3), 0)).toBeUndefined();
  });

  it('fills the days a series leaves out with zero', () => {
    const kept = [{ day: MONDAY + DAY, spend: new Decimal(3) }];
    expect(daysBetween(kept, MONDAY, MONDAY + 3 * DAY).map((d) => d.spend.toFixed())).toEqual(['0', '3', '0']);
  });
});

describe('the backtest', () => {
  const today = MONDAY + 84 * DAY;

  it('a steady series: every week exact, inside its range, error 0', () => {
    const result = backtest(series(84, () => '7'), today, 8, 7, 28, 0);
    expect(result.weeks).toHaveLength(8);
    expect(result.mape!.toFixed()).toBe('0');
    expect(result.inside).toBe(8);
    expect(result.weeks.every((w) => w.projected.eq(49) && w.actual.eq(49))).toBe(true);
  });

  it('a step from 10 to 20 a day: the week after the step is missed by half, later weeks are exact again', () => {
    // Days 0–55 at 10, 56 on at 20: the backtest's 8 weeks start at day 28, so week 5 (day 56) is the step.
    const result = backtest(series(84, (i) => (i < 56 ? '10' : '20')), today, 8, 7, 28, 0);
    const errors = result.weeks.map((w) => w.errorPercent!.toFixed(1));
    expect(errors).toEqual(['0.0', '0.0', '0.0', '0.0', '-50.0', '0.0', '0.0', '0.0']);
    expect(result.mape!.toFixed(2)).toBe('6.25');
  });

  it('a spike: the week that holds it falls outside the range, the quiet weeks are inside', () => {
    const result = backtest(series(84, (i) => (i === 70 ? '500' : String(10 + (i % 3)))), today, 8, 7, 28, 0);
    const spikeWeek = result.weeks.find((w) => w.start <= MONDAY + 70 * DAY && MONDAY + 70 * DAY < w.end)!;
    expect(spikeWeek.inside).toBe(false);
    expect(result.weeks.filter((w) => w.end <= MONDAY + 70 * DAY).every((w) => w.inside)).toBe(true);
  });

  it('a week that spent nothing has no percentage error (never a division by zero), and is left out of the mean', () => {
    const result = backtest(series(84, (i) => (i >= 77 ? '0' : '5')), today, 2, 7, 28, 0);
    expect(result.weeks[1]!.errorPercent).toBeUndefined();
    expect(result.mape!.toFixed()).toBe('0');
  });
});

describe("the month's projection and its range", () => {
  it('are one method: the projection is the middle of its own range, whatever the series and the hour (property)', async () => {
    const { forecast } = await import('../../src/domain/forecast.js');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 30, maxLength: 91 }), fc.integer({ min: 1, max: 14 }), fc.integer({ min: 0, max: 27 * DAY }), (cents, basisDays, into) => {
        // A weekly pattern under the noise (weekends light), as the steady account had.
        const now = Date.UTC(2026, 10, 1) / 1000 + into;
        const today = Math.floor(now / DAY) * DAY;
        const days = cents.map((c, i) => {
          const day = today - (cents.length - i) * DAY;
          return { day, spend: new Decimal(c + ([0, 6].includes(weekdayOf(day, 0)) ? 0 : 3_000)).div(100) };
        });
        const f = forecast({ balance: new Decimal(1000), days, basisDays, now, dayOffset: 0, today: undefined });
        if (!f.monthRange) return;
        expect(f.monthRange.expected.toFixed()).toBe(f.projectedMonthEnd.toFixed());
        expect(f.monthRange.low.lte(f.projectedMonthEnd) && f.projectedMonthEnd.lte(f.monthRange.high)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the month's range says how often it held", () => {
  it('on a steady series every past week tried held; on one that keeps growing, the range says how few did', async () => {
    const { forecast } = await import('../../src/domain/forecast.js');
    const now = Date.UTC(2026, 10, 20, 12) / 1000;
    const today = Math.floor(now / DAY) * DAY;
    const days = (spend: (i: number) => number) => Array.from({ length: 91 }, (_, i) => ({ day: today - (91 - i) * DAY, spend: new Decimal(spend(i)).div(100) }));
    const steady = forecast({ balance: new Decimal(1000), days: days((i) => 1000 + (i % 3) * 10), basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(steady.monthRange!.held).toEqual({ inside: 8, weeks: 8 });
    // Each day 5% more than the day before: the last week's pace always falls short of the next week.
    const growing = forecast({ balance: new Decimal(1000), days: days((i) => Math.round(1000 * 1.05 ** i)), basisDays: 7, now, dayOffset: 0, today: undefined });
    expect(growing.monthRange!.held!.weeks).toBe(8);
    expect(growing.monthRange!.held!.inside).toBeLessThanOrEqual(4);
  });
});

describe('the integer square root the spread uses', () => {
  it('is the largest root whose square is not above the value (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 240n }), (value) => {
        const root = sqrt(value);
        expect(root * root <= value && (root + 1n) * (root + 1n) > value).toBe(true);
      }),
    );
  });
});
