// Budget periods in a zone: a day, a week from a chosen weekday, or a month from a chosen day of
// the month, each beginning at 00:00 on the zone's clocks, across daylight-saving changes too (a
// day of 23 or 25 hours is still one day). Where a zone skips midnight, the period begins when
// the clocks start again (fromWallClock reads a skipped time after the gap).
import { type Zone, fromWallClock, wallClock } from './zone.js';

export type PeriodKind = 'day' | 'week' | 'month';

export interface PeriodSpec {
  period: PeriodKind;
  /** Weeks: the weekday they begin (0 = Sunday … 6 = Saturday). Months: the day they begin (1-28). Days: unused. */
  starts: number;
  zone: Zone;
}

export interface Period {
  /** Unix seconds: the period holding the instant asked about is [start, end). */
  start: number;
  end: number;
}

const DAY = 86_400;

/** 00:00 on a date of the zone's calendar (year, month 1-12, day; out-of-range days roll over as Date.UTC does). */
function midnight(year: number, month: number, day: number, zone: Zone): number {
  return fromWallClock(Date.UTC(year, month - 1, day) / 1000, zone);
}

/** The period that holds `t`. */
export function periodAt(t: number, spec: PeriodSpec): Period {
  const c = wallClock(t, spec.zone);
  switch (spec.period) {
    case 'day': {
      let start = midnight(c.year, c.month, c.day, spec.zone);
      // A zone whose midnight is skipped starts the day after the gap, which may be after t's clock reading.
      if (start > t) start = midnight(c.year, c.month, c.day - 1, spec.zone);
      return { start, end: midnight(c.year, c.month, c.day + 1, spec.zone) };
    }
    case 'week': {
      const back = (c.weekday - spec.starts + 7) % 7;
      return { start: midnight(c.year, c.month, c.day - back, spec.zone), end: midnight(c.year, c.month, c.day - back + 7, spec.zone) };
    }
    case 'month': {
      const thisMonth = c.day >= spec.starts;
      const [year, month] = thisMonth ? [c.year, c.month] : c.month === 1 ? [c.year - 1, 12] : [c.year, c.month - 1];
      const start = midnight(year, month, spec.starts, spec.zone);
      const end = month === 12 ? midnight(year + 1, 1, spec.starts, spec.zone) : midnight(year, month + 1, spec.starts, spec.zone);
      return { start, end };
    }
  }
}

/** Weekday names as `--starts` takes them, in Date's numbering (0 = Sunday). */
export const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** Seconds of a period that have gone by at `t`, and how many are left, exactly. */
export function elapsedOf(period: Period, t: number): { elapsed: number; left: number; length: number } {
  const length = period.end - period.start;
  const elapsed = Math.min(Math.max(t - period.start, 0), length);
  return { elapsed, left: length - elapsed, length };
}

export { DAY as SECONDS_A_DAY };
