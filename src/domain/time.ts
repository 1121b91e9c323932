// Time specifications and usage windows: half-open [start, end) in Unix seconds on a bucket grid.
import { UsageError } from '../errors.js';

export type BucketSize = 'hour' | 'day';

export const BUCKET_SECONDS: Record<BucketSize, number> = { hour: 3600, day: 86_400 };
/** The service answers at most this much per request; longer windows are split. */
export const MAX_WINDOW_SECONDS = 92 * 86_400;

/** A grid of buckets: `size` seconds long, starting `offset` seconds after UTC midnight. */
export interface BucketGrid {
  size: number;
  /** Seconds east of UTC (a day grid that starts at 16:00 UTC has offset +28800). */
  offset: number;
}

export interface UsageWindow {
  start: number;
  end: number;
}

export function parseBucket(text: string): BucketSize {
  if (text === 'hour' || text === 'day') return text;
  throw new UsageError(`--bucket "${text}" is not one of hour, day`);
}

/** Start of the bucket that contains `t`. */
export function alignDown(t: number, grid: BucketGrid): number {
  return Math.floor((t + grid.offset) / grid.size) * grid.size - grid.offset;
}

const SPAN_UNITS: Record<string, number> = { m: 60, h: 3600, d: 86_400, w: 604_800 };
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a time given on the command line into Unix seconds: `now`, a relative span back from
 * now (`90m`, `36h`, `7d`, `2w`), Unix seconds, or ISO-8601 (a date or a date-time, with or
 * without an offset; without one it is read in `localOffset` seconds east of UTC).
 */
export function parseTimeSpec(text: string, now: number, localOffset: (utcGuess: number) => number, flag = '--since'): number {
  const spec = text.trim();
  if (spec === 'now') return now;
  const span = /^(\d+)([mhdw])$/.exec(spec);
  if (span) return now - Number(span[1]) * SPAN_UNITS[span[2]!]!;
  if (/^\d+$/.test(spec)) {
    if (spec.length < 9 || spec.length > 11) throw new UsageError(`${flag} "${text}" is not a time: Unix seconds have 9 to 11 digits (or use an ISO date such as 2026-11-01)`);
    return Number(spec);
  }
  const iso = ISO.exec(spec);
  if (!iso) {
    throw new UsageError(`${flag} "${text}" is not a time (use an ISO date or date-time, Unix seconds, now, or a span such as 90m, 36h, 7d, 2w)`);
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00', , zone] = iso;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const utc = Date.UTC(...fields) / 1000;
  const check = new Date(utc * 1000);
  if (check.getUTCFullYear() !== fields[0] || check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) {
    throw new UsageError(`${flag} "${text}" is not a valid date`);
  }
  if (zone === undefined) return utc - localOffset(utc);
  return utc - zoneSeconds(zone);
}

/** `Z`, `+08:00`, `-0530` as seconds east of UTC. */
export function zoneSeconds(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 3600 + Number(digits.slice(3, 5)) * 60);
}

/** The machine's offset from UTC at a moment, in seconds east (honours TZ). */
export function systemOffset(utcSeconds: number): number {
  return -new Date(utcSeconds * 1000).getTimezoneOffset() * 60;
}

export interface WindowInput {
  bucket: BucketSize;
  since?: string;
  until?: string;
  /** Unix seconds. */
  now: number;
  /** Seconds east of UTC for times written without an offset. */
  localOffset: (utcGuess: number) => number;
  /** The grid to align to, when known (--utc-offset); otherwise whole hours. */
  grid: BucketGrid;
}

/**
 * The window to ask for. The default ends at the end of the current bucket and spans 7 days
 * (day) or 24 hours (hour). Ends are aligned down to `grid`; when the service's day grid is not
 * known the caller passes an hour grid, so the service's own alignment decides the day edges.
 */
export function requestWindow(input: WindowInput): UsageWindow {
  const size = BUCKET_SECONDS[input.bucket];
  const defaultSpan = input.bucket === 'day' ? 7 * 86_400 : 86_400;
  const rawEnd = input.until === undefined ? input.now + size : parseTimeSpec(input.until, input.now, input.localOffset, '--until');
  const rawStart = input.since === undefined ? rawEnd - defaultSpan : parseTimeSpec(input.since, input.now, input.localOffset, '--since');
  if (rawStart >= rawEnd) {
    throw new UsageError(`--since (${input.since ?? 'default'}) must be before --until (${input.until ?? 'default'})`);
  }
  const start = alignDown(rawStart, input.grid);
  const end = alignDown(rawEnd, input.grid);
  if (start >= end) {
    throw new UsageError(`the window from ${input.since ?? 'default'} to ${input.until ?? 'default'} holds no whole ${input.bucket} once aligned to the bucket grid`);
  }
  return { start, end };
}

/** Consecutive windows of at most MAX_WINDOW_SECONDS covering [start, end) without gaps. */
export function splitWindow(window: UsageWindow, maxSeconds = MAX_WINDOW_SECONDS): UsageWindow[] {
  const parts: UsageWindow[] = [];
  for (let start = window.start; start < window.end; start += maxSeconds) {
    parts.push({ start, end: Math.min(start + maxSeconds, window.end) });
  }
  return parts;
}
