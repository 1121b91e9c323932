import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareByModel, comparedWindow, totalRow } from '../../src/domain/comparison.js';
import { Decimal } from '../../src/domain/money.js';
import { UTC } from '../../src/domain/zone.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30) / 1000;
const at = (iso: string) => Date.parse(iso) / 1000;

describe('comparedWindow', () => {
  const input = (current: [string, string], spec: string, extra: { month?: string; last?: string } = {}, offset = 0) => ({ current: { start: at(current[0]), end: at(current[1]) }, spec, ...extra, dayOffset: offset, now: NOW, zone: UTC });

  it('takes the same length before a window, the calendar month or quarter before a calendar one', () => {
    expect(comparedWindow(input(['2026-11-14T00:00Z', '2026-11-21T00:00Z'], 'previous'))).toEqual({ start: at('2026-11-07T00:00Z'), end: at('2026-11-14T00:00Z') });
    // October has 31 days, September 30: the month before, not 31 days before.
    expect(comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], 'previous', { month: '2026-10' }))).toEqual({ start: at('2026-09-01T00:00Z'), end: at('2026-10-01T00:00Z') });
    expect(comparedWindow(input(['2026-07-01T00:00Z', '2026-10-01T00:00Z'], 'previous', { last: 'quarter' }))).toEqual({ start: at('2026-04-01T00:00Z'), end: at('2026-07-01T00:00Z') });
    // On a +08:00 grid the month before starts at its midnight there.
    expect(comparedWindow(input(['2026-09-30T16:00Z', '2026-10-31T16:00Z'], 'previous', { month: '2026-10' }, 8 * 3600))).toEqual({ start: at('2026-08-31T16:00Z'), end: at('2026-09-30T16:00Z') });
  });

  it('takes a month or DATE..DATE as named, and says what is wrong with one of --compare', () => {
    expect(comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], '2026-08'))).toEqual({ start: at('2026-08-01T00:00Z'), end: at('2026-09-01T00:00Z') });
    expect(comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], '2026-09-01..2026-09-15'))).toEqual({ start: at('2026-09-01T00:00Z'), end: at('2026-09-15T00:00Z') });
    expect(() => comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], 'last year'))).toThrow('--compare "last year" is not previous, last-year, a month (YYYY-MM) or DATE..DATE (e.g. 2026-09-01..2026-10-01)');
    expect(() => comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], '2026-13'))).toThrow('--compare "2026-13": "2026-13" is not a month (YYYY-MM, e.g. 2026-10)');
  });

  it('takes the same dates a year before with last-year, on the grid (the 29th of February as the 28th)', () => {
    expect(comparedWindow(input(['2026-11-16T00:00Z', '2026-11-23T00:00Z'], 'last-year'))).toEqual({ start: at('2025-11-16T00:00Z'), end: at('2025-11-23T00:00Z') });
    expect(comparedWindow(input(['2026-10-31T16:00Z', '2026-11-30T16:00Z'], 'last-year', { month: '2026-11' }, 8 * 3600))).toEqual({ start: at('2025-10-31T16:00Z'), end: at('2025-11-30T16:00Z') });
    expect(comparedWindow(input(['2028-02-29T00:00Z', '2028-03-01T00:00Z'], 'last-year'))).toEqual({ start: at('2027-02-28T00:00Z'), end: at('2027-03-01T00:00Z') });
    expect(() => comparedWindow(input(['2026-10-01T00:00Z', '2026-11-01T00:00Z'], 'lastyear'))).toThrow(expect.objectContaining({ hint: 'Did you mean "last-year"?' }));
  });

  it('ends where the window starts, with the same length, for any window on any grid (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 92 }), fc.integer({ min: -12, max: 14 }), (daysAgo, length, hours) => {
        const offset = hours * 3600;
        const end = Math.floor((NOW + offset) / 86_400) * 86_400 - offset - daysAgo * 86_400;
        const current = { start: end - length * 86_400, end };
        const previous = comparedWindow({ current, spec: 'previous', dayOffset: offset, now: NOW, zone: UTC });
        expect(previous).toEqual({ start: current.start - length * 86_400, end: current.start });
      }),
    );
  });
});

describe('compareByModel', () => {
  const spend = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 0, max: 1_000_000 }).map((n) => new Decimal(n).div(10_000)));
  it('has a row per model of either period, the largest change first, and changes that add up to the total change (property)', () => {
    fc.assert(
      fc.property(spend, spend, (now, before) => {
        const rows = compareByModel(new Map(Object.entries(now)), new Map(Object.entries(before)));
        expect(new Set(rows.map((r) => r.model))).toEqual(new Set([...Object.keys(now), ...Object.keys(before)]));
        for (let i = 1; i < rows.length; i++) expect(rows[i]!.change.abs().lte(rows[i - 1]!.change.abs())).toBe(true);
        const total = totalRow(rows);
        expect(rows.reduce((a, r) => a.plus(r.change), new Decimal(0)).eq(total.change)).toBe(true);
        for (const r of rows) {
          expect(r.status).toBe(r.previous.isZero() && !r.current.isZero() ? 'new' : r.current.isZero() && !r.previous.isZero() ? 'gone' : undefined);
          expect(r.changePercent === null).toBe(r.previous.isZero());
        }
      }),
    );
  });
});
