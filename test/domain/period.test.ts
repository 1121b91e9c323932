import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PeriodKind, periodAt } from '../../src/domain/period.js';
import { fixedZone, namedZone, parseZone, wallClock } from '../../src/domain/zone.js';

// Zones with daylight saving of an hour (both hemispheres), of half an hour (Lord Howe), one that
// skips midnight (Santiago: clocks go 24:00 → 01:00), odd fixed offsets, and none at all.
const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Shanghai', 'Pacific/Chatham', 'Asia/Kathmandu', 'UTC'];
const at = (y: number, m: number, d: number, h = 0, min = 0) => Date.UTC(y, m - 1, d, h, min) / 1000;

describe('periodAt', () => {
  it('holds the instant, begins at 00:00 on the zone clocks (after the gap where midnight is skipped), and the next one begins where it ends (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: at(2001, 1, 1), max: at(2098, 12, 31) }),
        fc.constantFrom<PeriodKind>('day', 'week', 'month'),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 28 }),
        (name, t, period, weekday, monthDay) => {
          const zone = namedZone(name);
          const spec = { period, zone, starts: period === 'week' ? weekday : monthDay };
          const p = periodAt(t, spec);
          expect(p.start).toBeLessThanOrEqual(t);
          expect(t).toBeLessThan(p.end);
          const start = wallClock(p.start, zone);
          // Midnight, or the first moment after a skipped one.
          expect(start.minute === 0 && (start.hour === 0 || start.hour === 1)).toBe(true);
          if (period === 'week') expect(start.weekday).toBe(weekday);
          if (period === 'month') expect(start.day).toBe(monthDay);
          // Days of 23, 23.5, 24, 24.5 or 25 hours; weeks of 7 such days; months of 28 to 31.
          const hours = (p.end - p.start) / 3600;
          const days = { day: [23, 25], week: [167, 169], month: [28 * 24 - 1, 31 * 24 + 1] }[period];
          expect(hours).toBeGreaterThanOrEqual(days[0]!);
          expect(hours).toBeLessThanOrEqual(days[1]!);
          expect(periodAt(p.end, spec).start).toBe(p.end);
          expect(periodAt(p.start - 1, spec).end).toBe(p.start);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('follows daylight saving: the New York day of the change is 23 or 25 hours', () => {
    const ny = namedZone('America/New_York');
    expect((({ start, end }) => (end - start) / 3600)(periodAt(at(2026, 3, 8, 12), { period: 'day', starts: 0, zone: ny }))).toBe(23);
    expect((({ start, end }) => (end - start) / 3600)(periodAt(at(2026, 11, 1, 12), { period: 'day', starts: 0, zone: ny }))).toBe(25);
  });

  it('begins a month on the chosen day, in the zone: ¥500 a month from the 1st in Shanghai', () => {
    const p = periodAt(at(2026, 11, 20, 9, 30), { period: 'month', starts: 1, zone: namedZone('Asia/Shanghai') });
    expect(p).toEqual({ start: at(2026, 10, 31, 16), end: at(2026, 11, 30, 16) });
    // Before the 15th, a month from the 15th began in the month before.
    expect(periodAt(at(2026, 1, 10), { period: 'month', starts: 15, zone: fixedZone(0) })).toEqual({ start: at(2025, 12, 15), end: at(2026, 1, 15) });
    // A week from Monday.
    expect(periodAt(at(2026, 11, 20, 9, 30), { period: 'week', starts: 1, zone: fixedZone(0) })).toEqual({ start: at(2026, 11, 16), end: at(2026, 11, 23) });
  });
});

describe('parseZone', () => {
  it.each([['UTC', 'UTC'], ['+08:00', 'UTC+08:00'], ['-05:30', 'UTC-05:30'], ['Asia/Shanghai', 'Asia/Shanghai'], ['America/New_York', 'America/New_York']])('reads %s', (text, label) => {
    expect(parseZone(text)?.label).toBe(label);
  });
  it.each(['Mars/Olympus', '+14:30', '+05:20', 'asia shanghai', '', '../../etc/passwd'])('refuses %j', (text) => {
    expect(parseZone(text)).toBeUndefined();
  });
});
