import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../src/errors.js';
import { type BucketSize, bucketEnd, bucketStart, bucketStarts, ended, nextBucketStart, parseTimeSpec, resolveWindow, splitWindow } from '../../src/domain/window.js';
import { UTC, fixedZone, namedZone } from '../../src/domain/zone.js';

const NOW = Date.UTC(2026, 10, 21, 23, 18, 55) / 1000; // Sat 2026-11-21 23:18:55 UTC
const D = 86400;
const at = (...fields: [number, number, number, number?, number?]) => Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3] ?? 0, fields[4] ?? 0) / 1000;
const context = { now: NOW, anchor: NOW, zone: UTC };

describe('parseTimeSpec', () => {
  it.each([
    ['now', NOW],
    ['90m', NOW - 90 * 60],
    ['36h', NOW - 36 * 3600],
    ['7d', NOW - 7 * D],
    ['2w', NOW - 14 * D],
    ['1790000000', 1790000000],
    ['2026-11-01', at(2026, 11, 1)],
    ['2026-11-01T08:30', at(2026, 11, 1, 8, 30)],
    ['2026-11-01T08:30:15Z', at(2026, 11, 1, 8, 30) + 15],
    ['2026-11-01T08:00:00+08:00', at(2026, 11, 1)],
    ['2026-11-01 08:00:00-05:30', at(2026, 11, 1, 13, 30)],
  ])('reads %s', (text, expected) => {
    expect(parseTimeSpec(text, context)).toBe(expected);
  });

  it('counts spans back from the anchor (the end of the current bucket for bucketed windows)', () => {
    expect(parseTimeSpec('7d', { ...context, anchor: at(2026, 11, 22) })).toBe(at(2026, 11, 15));
  });

  it('reads a time without an offset in the display zone, a fixed one or one with daylight saving', () => {
    expect(parseTimeSpec('2026-11-01', { ...context, zone: fixedZone(8 * 3600) })).toBe(at(2026, 10, 31, 16));
    const newYork = namedZone('America/New_York');
    // Clocks went back at 02:00 EDT on 2026-11-01: 03:00 is EST (UTC-5), 00:30 still EDT (UTC-4).
    expect(parseTimeSpec('2026-11-01T03:00', { ...context, zone: newYork })).toBe(at(2026, 11, 1, 8));
    expect(parseTimeSpec('2026-11-01T00:30', { ...context, zone: newYork })).toBe(at(2026, 11, 1, 4, 30));
    // 01:30 happens twice: the first one.
    expect(parseTimeSpec('2026-11-01T01:30', { ...context, zone: newYork })).toBe(at(2026, 11, 1, 5, 30));
    // 02:30 on 2026-03-08 never happens (clocks jump to 03:00): read as 03:30 EDT.
    expect(parseTimeSpec('2026-03-08T02:30', { ...context, zone: newYork })).toBe(at(2026, 3, 8, 7, 30));
  });

  it.each(['tomorrow', '2026-00', '2026-02-30', '2026-13-01', '12345', '7x', '2026-11-01T25:00', '', '--1d', '999999999w', '9999999999w', '+275760-09-13', '-271821-04-20', '1999-12-31', '2100-01-02', '99999999999'])(
    'refuses %j with a usage error naming it',
    (text) => {
      expect(() => parseTimeSpec(text, context, '--since')).toThrow(UsageError);
      expect(() => parseTimeSpec(text, context, '--since')).toThrow(`--since "${text}"`);
    },
  );

  it('never throws anything but a UsageError, and gives a time between 2000 and 2100 (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const t = parseTimeSpec(text, context);
          return t >= Date.UTC(2000, 0, 1) / 1000 && t <= Date.UTC(2100, 0, 1) / 1000;
        } catch (error) {
          return error instanceof UsageError;
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bucket grids', () => {
  it('starts hours on whole UTC hours, days on the day grid, weeks on Monday, months on the 1st', () => {
    const t = at(2026, 11, 21, 10, 30);
    expect(bucketStart(t, 'hour', 8 * 3600)).toBe(at(2026, 11, 21, 10));
    expect(bucketStart(t, 'day', 8 * 3600)).toBe(at(2026, 11, 20, 16));
    expect(bucketStart(t, 'week', 0)).toBe(at(2026, 11, 16));
    expect(bucketStart(t, 'week', 8 * 3600)).toBe(at(2026, 11, 15, 16));
    expect(bucketStart(t, 'month', 0)).toBe(at(2026, 11, 1));
    expect(bucketStart(t, 'month', -5 * 3600)).toBe(at(2026, 11, 1, 5));
    expect(nextBucketStart(t, 'month', 0)).toBe(at(2026, 12, 1));
    expect(nextBucketStart(at(2026, 12, 15), 'month', 0)).toBe(at(2027, 1, 1));
    expect(nextBucketStart(at(2028, 2, 10), 'month', 0) - bucketStart(at(2028, 2, 10), 'month', 0)).toBe(29 * D);
  });

  it('lays periods end to end, each holding the times it starts (property)', () => {
    const sizes: BucketSize[] = ['hour', 'day', 'week', 'month'];
    fc.assert(
      fc.property(fc.integer({ min: at(2001, 1, 1), max: at(2098, 1, 1) }), fc.constantFrom(...sizes), fc.integer({ min: -12 * 60, max: 14 * 60 }), (t, size, minutes) => {
        const offset = minutes * 60;
        const start = bucketStart(t, size, offset);
        const next = nextBucketStart(t, size, offset);
        return start <= t && t < next && bucketStart(next, size, offset) === next && bucketStart(next - 1, size, offset) === start && bucketEnd(start, size, offset) === start;
      }),
      { numRuns: 3000 },
    );
  });
});

describe('resolveWindow', () => {
  const base = { now: NOW, zone: UTC };

  it('defaults to the last 7 days, today included, on a known day grid', () => {
    expect(resolveWindow({ ...base, bucket: 'day', dayOffset: 0 })).toEqual({ start: at(2026, 11, 15), end: at(2026, 11, 22), final: true });
    expect(resolveWindow({ ...base, bucket: 'day', dayOffset: 8 * 3600 })).toEqual({ start: at(2026, 11, 15, 16), end: at(2026, 11, 22, 16), final: true });
  });

  it('gives the same seven days for --since 7d as for the default', () => {
    expect(resolveWindow({ ...base, bucket: 'day', dayOffset: 0, since: '7d' })).toEqual(resolveWindow({ ...base, bucket: 'day', dayOffset: 0 }));
  });

  it('defaults to 24 hours, 8 weeks or 6 months, the current one included', () => {
    expect(resolveWindow({ ...base, bucket: 'hour', dayOffset: undefined })).toEqual({ start: at(2026, 11, 21), end: at(2026, 11, 22), final: true });
    expect(resolveWindow({ ...base, bucket: 'week', dayOffset: 0 })).toEqual({ start: at(2026, 9, 28), end: at(2026, 11, 23), final: true });
    expect(resolveWindow({ ...base, bucket: 'month', dayOffset: 0 })).toEqual({ start: at(2026, 6, 1), end: at(2026, 12, 1), final: true });
  });

  it('covers every bucket the times touch: start aligned down, end up, across a month end', () => {
    const w = resolveWindow({ ...base, bucket: 'day', dayOffset: 0, since: '2026-10-30T13:00:00Z', until: '2026-11-02T01:00:00Z' });
    expect(w).toEqual({ start: at(2026, 10, 30), end: at(2026, 11, 3), final: true });
    expect(resolveWindow({ ...base, bucket: 'day', dayOffset: 0, since: '2026-10-30', until: '2026-11-02' })).toEqual({ start: at(2026, 10, 30), end: at(2026, 11, 2), final: true });
  });

  it('asks in the service terms when the day grid is not known yet: it aligns both ends down itself', () => {
    const w = resolveWindow({ ...base, bucket: 'day', dayOffset: undefined });
    expect(w).toEqual({ start: NOW + D - 7 * D, end: NOW + D, final: false });
    const explicit = resolveWindow({ ...base, bucket: 'day', dayOffset: undefined, since: '2026-11-01T00:00:00Z', until: '2026-11-03T00:00:00Z' });
    // Down-aligned on any grid, this end is the end of the day that holds the instant before 2026-11-03.
    expect(explicit).toEqual({ start: at(2026, 11, 1), end: at(2026, 11, 3) + D - 1, final: false });
  });

  it('keeps exact times for an unbucketed window (logs) and its default days on the grid', () => {
    expect(resolveWindow({ ...base, bucket: undefined, dayOffset: 0, since: '2h' })).toEqual({ start: NOW - 7200, end: NOW, final: true });
    // The same seven days as usage, today included, up to now (records cannot be later).
    expect(resolveWindow({ ...base, bucket: undefined, dayOffset: 0 })).toEqual({ start: at(2026, 11, 15), end: NOW, final: true });
  });

  it('splits a 120-day window into 92 + 28 days without gap or overlap (the same when the service aligns them)', () => {
    const w = resolveWindow({ ...base, bucket: 'day', dayOffset: 0, since: '2026-07-01', until: '2026-10-29' });
    expect((w.end - w.start) / D).toBe(120);
    const parts = splitWindow(w);
    expect(parts.map((p) => (p.end - p.start) / D)).toEqual([92, 28]);
    expect(parts[0]!.start).toBe(w.start);
    expect(parts[0]!.end).toBe(parts[1]!.start);
    expect(parts[1]!.end).toBe(w.end);
    expect(splitWindow({ start: w.start + 3600, end: w.end + 3600 }).map((p) => (p.end - p.start) / D)).toEqual([92, 28]);
  });

  it.each([
    [{ since: '2026-11-10', until: '2026-11-01' }, '--since (2026-11-10) must be before --until (2026-11-01)'],
    [{ since: 'now', until: 'now' }, '--since (now) must be before --until (now)'],
    [{ since: '2015-01-01' }, 'longer than 3,660 days'],
  ])('refuses an inverted, empty or endless window %j', (range, message) => {
    expect(() => resolveWindow({ ...base, bucket: 'hour', dayOffset: 0, ...range })).toThrow(message);
  });

  it('gives an ordered window that covers what was asked, on the grid (property)', () => {
    // Times up to now: what may be asked of the past (the future is the next property's).
    const time = fc.integer({ min: at(2020, 1, 1), max: NOW });
    fc.assert(
      fc.property(time, time, fc.constantFrom<BucketSize>('hour', 'day', 'week', 'month'), fc.integer({ min: -12, max: 14 }), (a, b, bucket, hours) => {
        if (a === b) return true;
        const [since, until] = a < b ? [a, b] : [b, a];
        const offset = hours * 3600;
        const w = resolveWindow({ now: NOW, zone: UTC, bucket, dayOffset: offset, since: String(since), until: String(until) });
        const starts = bucketStarts(w, bucket, offset);
        return w.start <= since && w.end >= until && w.start < w.end && bucketStart(w.start, bucket, offset) === w.start && bucketEnd(w.end, bucket, offset) === w.end && starts[0] === w.start;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('windows that reach into the future', () => {
  it('end at the end of the current bucket, and a window that starts after it has not begun (property)', () => {
    const past = fc.integer({ min: at(2020, 1, 1), max: NOW });
    const future = fc.integer({ min: NOW + 1, max: at(2028, 1, 1) });
    fc.assert(
      fc.property(past, future, fc.constantFrom<BucketSize>('hour', 'day', 'week', 'month'), fc.integer({ min: -12, max: 14 }), (since, until, bucket, hours) => {
        const offset = hours * 3600;
        const current = nextBucketStart(NOW, bucket, offset);
        const w = resolveWindow({ now: NOW, zone: UTC, bucket, dayOffset: offset, since: String(since), until: String(until) });
        expect(w).toEqual({ start: bucketStart(since, bucket, offset), end: Math.min(bucketEnd(until, bucket, offset), current), final: true });
        if (until > current) expect(() => resolveWindow({ now: NOW, zone: UTC, bucket, dayOffset: offset, since: String(until) })).toThrow(/has not begun: it starts after the current/);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a calendar period that has not begun, naming it', () => {
    expect(() => resolveWindow({ now: NOW, zone: UTC, bucket: 'day', dayOffset: 0, month: '2027-03' })).toThrow('the window from --month 2027-03 has not begun: it starts after the current day (ask for a period up to now)');
    expect(() => resolveWindow({ now: NOW, zone: UTC, bucket: undefined, dayOffset: 0, since: '2030-01-01' })).toThrow('the window from --since 2030-01-01 has not begun: it starts after now (ask for a period up to now)');
  });
});

describe('calendar forms', () => {
  const base = { now: NOW, zone: UTC, bucket: 'day' as const };
  it.each([
    [0, 'today', at(2026, 11, 21)],
    [0, 'yesterday', at(2026, 11, 20)],
    [8 * 3600, 'today', at(2026, 11, 21, 16)], // 07:18 on Sunday in UTC+8
    [8 * 3600, '2026-10', at(2026, 9, 30, 16)],
    [-5 * 3600, '2026-10', at(2026, 10, 1, 5)],
  ])('on a grid %i s east of UTC reads %s as the start of that grid day', (dayOffset, text, expected) => {
    expect(parseTimeSpec(text, { ...context, dayOffset }, '--since')).toBe(expected);
  });

  it('reads --month as that month whole and --last as the last complete period, on the grid', () => {
    expect(resolveWindow({ ...base, dayOffset: 0, month: '2026-02' })).toEqual({ start: at(2026, 2, 1), end: at(2026, 3, 1), final: true });
    expect(resolveWindow({ ...base, dayOffset: 0, last: 'day' })).toEqual({ start: at(2026, 11, 20), end: at(2026, 11, 21), final: true });
    expect(resolveWindow({ ...base, dayOffset: 0, last: 'week' })).toEqual({ start: at(2026, 11, 9), end: at(2026, 11, 16), final: true });
    expect(resolveWindow({ ...base, dayOffset: 0, last: 'month' })).toEqual({ start: at(2026, 10, 1), end: at(2026, 11, 1), final: true });
    expect(resolveWindow({ ...base, dayOffset: 0, last: 'quarter' })).toEqual({ start: at(2026, 7, 1), end: at(2026, 10, 1), final: true });
    expect(() => resolveWindow({ ...base, dayOffset: 0, last: 'month', since: '7d' })).toThrow('--since and --last each name the window; give one of them');
    expect(() => resolveWindow({ ...base, dayOffset: 0, month: '2026-13' })).toThrow('is not a month');
    expect(() => resolveWindow({ ...base, dayOffset: 0, last: 'year' })).toThrow('is not one of day, week, month, quarter');
  });

  it('makes --last a whole period just before the one holding now, on any grid and at any time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: at(2001, 1, 1), max: at(2098, 12, 31) }), fc.integer({ min: -48, max: 56 }).map((q) => q * 900), fc.constantFrom('day', 'week', 'month', 'quarter'), (now, dayOffset, last) => {
        const w = resolveWindow({ now, zone: UTC, bucket: 'day', dayOffset, last });
        const size = last === 'quarter' ? 'month' : (last as BucketSize);
        // It ends where the current period starts, and starts on a boundary of the grid.
        expect(w.end).toBeLessThanOrEqual(now);
        expect(bucketStart(w.start, size, dayOffset)).toBe(w.start);
        expect(bucketStart(w.end, size, dayOffset)).toBe(w.end);
        expect(w.end).toBe(last === 'quarter' ? w.end : bucketStart(now, size, dayOffset));
        const days = (w.end - w.start) / D;
        const expected = { day: [1, 1], week: [7, 7], month: [28, 31], quarter: [89, 92] }[last]!;
        expect(days).toBeGreaterThanOrEqual(expected[0]!);
        expect(days).toBeLessThanOrEqual(expected[1]!);
      }),
      { numRuns: 400 },
    );
  });
});

describe('whether a period has ended', () => {
  it('has ended from its end on, not a second before; every bucket before the current one has', () => {
    expect(ended({ end: 100 }, 100)).toBe(true);
    expect(ended({ end: 100 }, 99)).toBe(false);
    fc.assert(
      fc.property(fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), fc.constantFrom<BucketSize>('hour', 'day'), fc.integer({ min: -12 * 3600, max: 14 * 3600 }), (now, bucket, offset) => {
        const current = bucketStart(now, bucket, offset);
        expect(ended({ end: nextBucketStart(current, bucket, offset) }, now)).toBe(false);
        expect(ended({ end: current }, now)).toBe(true);
      }),
    );
  });
});
