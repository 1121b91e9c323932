// How a usage series is labelled and described: bucket labels on the day grid or in the display
// zone, where the day grid came from, and what the gateway's cache said.
import type { UsageSeries } from '../figures/usage-series.js';
import { UTC, dateText, formatOffset, two, wallClock } from '../domain/zone.js';
import { memo } from './memo.js';
import { gridMismatch } from './window-text.js';

/**
 * Labels for bucket starts: hours in the display zone (with the offset in force at each hour
 * when it changes within the window: the hour after clocks go back repeats its wall time);
 * days, weeks and months on the day grid.
 */
export function bucketLabeller(series: Pick<UsageSeries, 'bucket' | 'labelZone'> & { window?: UsageSeries['window'] }): (seconds: number) => string {
  const zone = series.labelZone;
  const window = series.window;
  if (series.bucket === 'hour') {
    const offsetChanges = window !== undefined && zone.fixedOffset === undefined && zone.offsetAt(window.start) !== zone.offsetAt(window.end - 1);
    // The hours of a day share its date: it is written once per day, the time of day is arithmetic.
    const dates = new Map<number, string>();
    return (seconds) => {
      const offset = zone.offsetAt(seconds);
      const local = seconds + offset;
      const day = Math.floor(local / 86_400);
      let date = dates.get(day);
      if (date === undefined) dates.set(day, (date = dateText(wallClock(day * 86_400, UTC))));
      const inDay = local - day * 86_400;
      return `${date} ${two(Math.floor(inDay / 3600))}:${two(Math.floor((inDay % 3600) / 60))}${offsetChanges ? ` ${formatOffset(offset)}` : ''}`;
    };
  }
  // Days, weeks and months: a label may be asked for more than once (a chart's axis).
  return memo((seconds: number) => {
    const c = wallClock(seconds, zone);
    switch (series.bucket) {
      case 'day': return `${dateText(c)} ${WEEKDAYS[c.weekday]}`;
      case 'week': return `${dateText(c)} W${two(isoWeek(c))}`;
      default: return dateText(c).slice(0, 7);
    }
  });
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The ISO 8601 week number of a date (weeks start on Monday; week 1 holds January 4th). */
function isoWeek(c: { year: number; month: number; day: number }): number {
  const date = Date.UTC(c.year, c.month - 1, c.day);
  const weekday = (new Date(date).getUTCDay() + 6) % 7;
  const thursday = date + (3 - weekday) * 86_400_000;
  const firstThursday = new Date(thursday);
  const yearStart = Date.UTC(firstThursday.getUTCFullYear(), 0, 1);
  return 1 + Math.floor((thursday - yearStart) / (7 * 86_400_000));
}

/** Where the day grid came from, for a footer. */
export function describeGrid(series: Pick<UsageSeries, 'dayGrid'>): string {
  switch (series.dayGrid.source) {
    case 'flag': return 'day grid from --utc-offset';
    case 'profile': return "day grid from the profile's utc_offset";
    case 'inferred': return series.dayGrid.claimed ? gridMismatch(series.dayGrid) : "the gateway's day grid, inferred from the data";
    case 'learned': return "the gateway's day grid, as seen before";
    case 'assumed': return 'day grid assumed UTC: no buckets to infer it from (set --utc-offset)';
  }
}

export function describeCache(cache: UsageSeries['cache']): string {
  switch (cache) {
    case 'HIT': return 'cached: the gateway answered from its cache (polls within its cache period get the same window)';
    case 'MISS': return 'fresh: computed by the gateway for this request';
    case 'unrecognised': return 'cache state unknown (the gateway sent an X-Cache value tally does not know)';
    default: return 'cache state not reported by the gateway';
  }
}

