import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SpikeRule, baselineOf, changePercent, findGrowth, findSpikes, median } from '../../src/domain/anomalies.js';
import { Decimal } from '../../src/domain/money.js';

const d = (values: (number | string)[]) => values.map((v) => new Decimal(v));
const rule = (minAmount: string | number = 1, baseline = 7): SpikeRule => ({ baseline, deviations: 5, minRatio: 2, minAmount: new Decimal(minAmount) });
/** Amounts in fen-like steps: whole cents from 0.01 to 100.00. */
const amount = fc.integer({ min: 1, max: 10_000 }).map((n) => new Decimal(n).div(100));

describe('median and baseline', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median(d([3, 1, 2])).toFixed()).toBe('2');
    expect(median(d([4, 1, 3, 2])).toFixed()).toBe('2.5');
    expect(median([]).toFixed()).toBe('0');
  });

  it('takes the trailing buckets, completed with the following ones at the start of a series', () => {
    const values = d([0, 1, 2, 3, 4, 5]);
    expect(baselineOf(values, 5, 3).map(String)).toEqual(['2', '3', '4']);
    expect(baselineOf(values, 1, 3).map(String)).toEqual(['0', '2', '3']);
    expect(baselineOf(values, 0, 3).map(String)).toEqual(['1', '2', '3']);
  });
});

describe('findSpikes', () => {
  it('finds the day that is far above the days before it, with its evidence', () => {
    const spikes = findSpikes(d(['10.00', '12.00', '9.50', '11.00', '10.50', '48.00', '10.00']), rule());
    expect(spikes.map((s) => ({ index: s.index, amount: s.amount.toFixed(), baseline: s.baseline.toFixed(), ratio: s.ratio?.toFixed(2) }))).toEqual([
      { index: 5, amount: '48', baseline: '10.25', ratio: '4.68' },
    ]);
  });

  it('finds nothing in a flat series, whatever its level (property)', () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 2, max: 60 }), fc.integer({ min: 1, max: 30 }), (level, length, baseline) => {
        expect(findSpikes(Array.from({ length }, () => level), rule(0, baseline))).toEqual([]);
      }),
    );
  });

  it('finds the same buckets when every amount and the minimum are scaled alike (property)', () => {
    fc.assert(
      fc.property(fc.array(amount, { minLength: 2, maxLength: 40 }), fc.integer({ min: 1, max: 1000 }), amount, (values, factor, minimum) => {
        const k = new Decimal(factor).div(10);
        const found = findSpikes(values, { ...rule(), minAmount: minimum }).map((s) => s.index);
        const scaled = findSpikes(values.map((v) => v.mul(k)), { ...rule(), minAmount: minimum.mul(k) }).map((s) => s.index);
        expect(scaled).toEqual(found);
      }),
    );
  });

  it('finds one spike at any position of a steady series, and only it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 90, max: 110 }), { minLength: 8, maxLength: 60 }),
        fc.nat(),
        fc.integer({ min: 3, max: 50 }),
        (steady, at, times) => {
          const values = steady.map((v) => new Decimal(v).div(10));
          const position = at % values.length;
          values[position] = new Decimal(10 * times + 11);
          expect(findSpikes(values, rule(1)).map((s) => s.index)).toEqual([position]);
        },
      ),
    );
  });

  it('never reports a spike below the minimum amount (property)', () => {
    fc.assert(
      fc.property(fc.array(amount, { minLength: 2, maxLength: 40 }), amount, (values, minimum) => {
        for (const spike of findSpikes(values, { ...rule(), minAmount: minimum })) expect(spike.amount.gte(minimum)).toBe(true);
      }),
    );
    // ¥0.01 → ¥0.05 is five times the baseline, and not news.
    expect(findSpikes(d(['0.01', '0.01', '0.01', '0.01', '0.05']), rule('0.50'))).toEqual([]);
    expect(findSpikes(d(['0.01', '0.01', '0.01', '0.01', '0.05']), rule('0.05')).map((s) => s.index)).toEqual([4]);
  });

  it('judges buckets from `from` on: the ones before are history only', () => {
    const values = d([1, 1, 30, 1, 1, 1, 1, 30]);
    expect(findSpikes(values, rule(), 0).map((s) => s.index)).toEqual([2, 7]);
    expect(findSpikes(values, rule(), 3).map((s) => s.index)).toEqual([7]);
  });

  it('reports a ratio of null over a zero baseline', () => {
    const [spike] = findSpikes(d([0, 0, 0, 0, 5]), rule());
    expect(spike).toMatchObject({ index: 4, ratio: null });
    expect(spike!.baseline.toFixed()).toBe('0');
  });
});

describe('findGrowth', () => {
  it('finds spend rising every period by at least the step', () => {
    const growth = findGrowth(d([10, 12, 15, 20]), new Decimal(10), new Decimal(1));
    expect(growth?.smallestStep.toFixed()).toBe('20');
    expect(findGrowth(d([10, 12, 12.5, 20]), new Decimal(10), new Decimal(1))).toBeUndefined();
    expect(findGrowth(d([0, 12, 15]), new Decimal(10), new Decimal(1))).toBeUndefined();
    expect(findGrowth(d([0.1, 0.2, 0.4]), new Decimal(10), new Decimal(1))).toBeUndefined();
  });

  it('is unchanged by scaling (property), and never finds growth in a series that falls somewhere', () => {
    fc.assert(
      fc.property(fc.array(amount, { minLength: 2, maxLength: 8 }), fc.integer({ min: 1, max: 1000 }), (values, factor) => {
        const k = new Decimal(factor);
        const found = findGrowth(values, new Decimal(5), new Decimal('0.01')) !== undefined;
        expect(findGrowth(values.map((v) => v.mul(k)), new Decimal(5), new Decimal('0.01').mul(k)) !== undefined).toBe(found);
        if (values.some((v, i) => i > 0 && v.lte(values[i - 1]!))) expect(found).toBe(false);
      }),
    );
  });
});

describe('changePercent', () => {
  it('is the change in percent, and null from zero', () => {
    expect(changePercent(new Decimal(40), new Decimal(50))?.toFixed()).toBe('25');
    expect(changePercent(new Decimal(0), new Decimal(50))).toBeNull();
  });
});

describe('hours against the same hour of the days before', () => {
  it('sets an afternoon against afternoons, not against nights', () => {
    // Three days of a daily rhythm: quiet nights, busy afternoons; the fourth afternoon is busier still.
    const day = (peak: number) => Array.from({ length: 24 }, (_, h) => new Decimal(h >= 12 && h < 18 ? peak : h >= 8 && h < 20 ? 1 : 0));
    const values = [...day(5), ...day(5), ...day(5), ...day(5)];
    expect(findSpikes(values, { ...rule(1, 3), stride: 24 })).toEqual([]);
    values[3 * 24 + 14] = new Decimal(40);
    expect(findSpikes(values, { ...rule(1, 3), stride: 24 }).map((s) => s.index)).toEqual([3 * 24 + 14]);
    // Against the trailing hours, every morning looks like a spike over the night before it.
    expect(findSpikes(values, rule(1, 6)).length).toBeGreaterThan(1);
  });

  it('takes every stride-th bucket for the baseline', () => {
    expect(baselineOf(d([0, 1, 2, 3, 4, 5, 6]), 6, 2, 2).map(String)).toEqual(['2', '4']);
    expect(baselineOf(d([0, 1, 2, 3, 4, 5, 6]), 1, 2, 2).map(String)).toEqual(['3', '5']);
  });
});
