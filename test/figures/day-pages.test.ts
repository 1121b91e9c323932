// A page of days held by the run answers a window inside it exactly as the gateway would: the
// same buckets, whichever way the gateway aligns an unaligned window, on any day grid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsagePage } from '../../src/api/usage.js';
import { cutFrom } from '../../src/figures/day-pages.js';

const DAY = 86_400;
const ORIGIN = Date.UTC(2026, 6, 1) / 1000;

/** A gateway's day series on grid `offset` (seconds east of UTC): a bucket for each day with calls. */
function gateway(offset: number, spent: boolean[], field: string) {
  const first = ORIGIN - offset;
  const buckets = spent.flatMap((has, i) => (has ? [{ [field]: first + i * DAY, cost: `${i}.25000000` }] : []));
  const down = (t: number) => Math.floor((t + offset) / DAY) * DAY - offset;
  const up = (t: number) => Math.ceil((t + offset) / DAY) * DAY - offset;
  /** What it serves for a window: days from the start aligned down (as the spec says) or up (as another gateway may), to the end aligned the same way. */
  const serve = (start: number, end: number, align: 'down' | 'up'): UsagePage => {
    const [from, to] = align === 'down' ? [down(start), down(end)] : [up(start), up(end)];
    return { buckets: buckets.filter((b) => (b[field] as number) >= from && (b[field] as number) < to), totals: { cost: 'whole' }, cache: 'MISS', scope: 'account' };
  };
  return { first, serve };
}

describe('cutFrom', () => {
  it('answers a window on the grid inside the page with the buckets the gateway would send for it; says nothing otherwise', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -47, max: 48 }).map((q) => q * 900),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.constantFrom('day', 'start', 't'),
        fc.constantFrom('down' as const, 'up' as const),
        fc.record({ a: fc.integer({ min: 0, max: 29 * DAY }), length: fc.integer({ min: 1, max: 30 * DAY }) }),
        fc.record({ from: fc.integer({ min: -2, max: 31 }), days: fc.integer({ min: 0, max: 31 }), skew: fc.constantFrom(0, 0, 0, 3600, -60) }),
        (offset, spent, field, align, asked, wanted) => {
          const g = gateway(offset, spent, field);
          const page = g.serve(g.first + asked.a, g.first + asked.a + asked.length, align);
          const start = g.first + wanted.from * DAY + wanted.skew;
          const window = { start, end: start + wanted.days * DAY };
          const cut = cutFrom(page, { start: g.first + asked.a, end: g.first + asked.a + asked.length }, window);
          if (!cut) return;
          // Whatever it answers is what the gateway answers for that window, without the page's totals (they were the whole page's).
          expect(cut.buckets).toEqual(g.serve(window.start, window.end, align).buckets);
          expect(cut.totals).toBeUndefined();
          expect(cut.scope).toBe('account');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers every whole-day window inside the days the page surely served', () => {
    const g = gateway(8 * 3600, Array.from({ length: 30 }, (_, i) => i % 4 !== 1), 'day');
    const asked = { start: g.first + 5 * 3600, end: g.first + 20 * DAY + 7 * 3600 };
    const page = g.serve(asked.start, asked.end, 'down');
    for (let from = 1; from < 20; from++) {
      for (let to = from; to <= 20; to++) {
        const window = { start: g.first + from * DAY, end: g.first + to * DAY };
        expect(cutFrom(page, asked, window)?.buckets).toEqual(g.serve(window.start, window.end, 'down').buckets);
      }
    }
    // The first day was cut by the page's own start (the gateway may or may not have served it whole): asked again.
    expect(cutFrom(page, asked, { start: g.first, end: g.first + 3 * DAY })).toBeUndefined();
    // Off the grid: asked again.
    expect(cutFrom(page, asked, { start: g.first + DAY + 3600, end: g.first + 3 * DAY + 3600 })).toBeUndefined();
  });

  it('a page without any bucket answers any window inside it with none', () => {
    const page: UsagePage = { buckets: [], totals: { cost: '0' }, cache: 'HIT', scope: 'key' };
    expect(cutFrom(page, { start: 0, end: 10 * DAY }, { start: 3600, end: 2 * DAY + 5 })).toEqual({ buckets: [], totals: undefined, cache: 'HIT', scope: 'key' });
  });
});
