import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followKeyTrack, runSpend, startKeyTrack, trackedSpend } from '../../src/domain/run-spend.js';

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

describe('a key followed through its daily counter (tally run)', () => {
  const DAY = 86_400;
  const text = (n: bigint) => `${n / 100000000n}.${String(n % 100000000n).padStart(8, '0')}`;

  it('adds what the counter rose by on each day: the rest of the first, and the new day from its zero', () => {
    let track = startKeyTrack({ dailyCostUsed: '10.5', day: 0 });
    track = followKeyTrack(track, { dailyCostUsed: '12', day: 0 });
    track = followKeyTrack(track, { dailyCostUsed: '13.25', day: 0 });
    expect([trackedSpend(track).toFixed(), track.floor]).toEqual(['2.75', false]);
    // The day ended between two readings: its last reading counts, the new day counts from zero; what came between is unseen.
    track = followKeyTrack(track, { dailyCostUsed: '0.4', day: DAY });
    expect([trackedSpend(track).toFixed(), track.floor]).toEqual(['3.15', true]);
    // A late answer of the day before changes nothing.
    expect(followKeyTrack(track, { dailyCostUsed: '99', day: 0 })).toBe(track);
  });

  it('starts a segment where the counter went down within a day, never a negative spend', () => {
    let track = startKeyTrack({ dailyCostUsed: '5', day: 0 });
    track = followKeyTrack(track, { dailyCostUsed: '7', day: 0 });
    track = followKeyTrack(track, { dailyCostUsed: '1', day: 0 });
    track = followKeyTrack(track, { dailyCostUsed: '1.5', day: 0 });
    expect([trackedSpend(track).toFixed(), track.floor]).toEqual(['2.5', true]);
  });

  it('is the sum of each day\'s rise over any readings that only rise within a day, exactly (property)', () => {
    // Days of readings: each day a rising list of counters (the first day's first is the start).
    const days = fc.array(fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 6 }).map((xs) => xs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(days, (readings) => {
        let track = startKeyTrack({ dailyCostUsed: text(readings[0]![0]!), day: 0 });
        let expected = 0n;
        for (const [d, day] of readings.entries()) {
          for (const value of day) track = followKeyTrack(track, { dailyCostUsed: text(value), day: d * DAY });
          expected += day[day.length - 1]! - (d === 0 ? day[0]! : 0n);
        }
        expect(trackedSpend(track).toFixed(8)).toBe(text(expected));
        expect(track.floor).toBe(readings.length > 1);
        expect(trackedSpend(track).isNegative()).toBe(false);
      }),
    );
  });
});
