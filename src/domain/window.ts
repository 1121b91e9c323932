// The one window rule, shared by `usage`, `usage --by model`, `logs`, `check --max-spend` and
// `forecast`: how --since/--until are read, the default window, how a window is laid on the
// bucket grid, and how it is split into requests the service answers.
//
// - A time is `now`, a span back (`90m`, `36h`, `7d`, `2w`), Unix seconds, or ISO 8601. A date
//   alone names a day of the gateway's day grid, as tables label them (`--until` exclusive), so
//   `--since 2026-11-01 --until 2026-11-08` is the seven days labelled 11-01 to 11-07 whatever
//   TZ is; a date-time without an offset is read in the display zone (--tz, else TZ).
// - Windows are half-open [start, end). A bucketed window covers every bucket the times touch:
//   its start is aligned down and its end up, so the current bucket is included.
// - Spans count back from the window's default end: the end of the current bucket, so `--since
//   7d` is the same seven days as the default; for unbucketed windows (logs), now.
// - Default: the last 7 days (hours: 24 hours; weeks: 8; months: 6), the current one included,
//   up to the end of the current bucket; unbucketed windows (logs) the same days, up to now.
// - A window with nothing in it (`--since 0d`) is a usage error, never an empty answer.
// - Calendar forms: `today` and `yesterday` (grid days), a month `YYYY-MM` (its first day);
//   `--month YYYY-MM` is that month whole; `--last day|week|month|quarter` the last complete one.
import { UsageError } from '../errors.js';
import { didYouMean } from './suggest.js';
import { type Zone, fromWallClock, isoInZone, wallClock } from './zone.js';

export type BucketSize = 'hour' | 'day' | 'week' | 'month';
export const BUCKET_SIZES: readonly BucketSize[] = ['hour', 'day', 'week', 'month'];

/** Seconds of the fixed-length buckets the service answers in. */
export const BUCKET_SECONDS = { hour: 3600, day: 86_400 } as const;

/** The service answers at most this much per request; longer windows are split. */
export const MAX_WINDOW_SECONDS = 92 * 86_400;
/** tally reads times in this range only (a time outside it is a typo, not a request). */
export const EARLIEST = Date.UTC(2000, 0, 1) / 1000;
export const LATEST = Date.UTC(2100, 0, 1) / 1000;
/** The longest window tally asks for: ten years, 40 requests of 92 days. */
export const MAX_SPAN_DAYS = 3660;

/** Buckets in the default window. */
const DEFAULT_COUNT: Record<BucketSize, number> = { hour: 24, day: 7, week: 8, month: 6 };

export interface UsageWindow {
  start: number;
  end: number;
}

/** Whether a period (a window, a bucket, a day) has ended at `now` (Unix seconds): its end is not after now. One rule for every "complete" and "so far". */
export function ended(period: { end: number }, now: number): boolean {
  return period.end <= now;
}

export function parseBucket(text: string, allowed: readonly BucketSize[] = BUCKET_SIZES): BucketSize {
  if ((allowed as readonly string[]).includes(text)) return text as BucketSize;
  throw new UsageError(`--bucket "${text}" is not one of ${allowed.join(', ')}`);
}

/**
 * The start of the bucket that holds `t`. Hours are whole UTC hours (the service's fast path);
 * days start `dayOffset` seconds east of UTC midnight; weeks on Monday and months on the 1st of
 * that day grid.
 */
export function bucketStart(t: number, bucket: BucketSize, dayOffset: number): number {
  switch (bucket) {
    case 'hour': return Math.floor(t / 3600) * 3600;
    case 'day': return Math.floor((t + dayOffset) / 86_400) * 86_400 - dayOffset;
    case 'week': {
      const day = Math.floor((t + dayOffset) / 86_400);
      // 1970-01-01 was a Thursday; Monday is 3 days after a day number divisible by 7.
      const sinceMonday = (((day - 4) % 7) + 7) % 7;
      return (day - sinceMonday) * 86_400 - dayOffset;
    }
    case 'month': {
      const wall = new Date((t + dayOffset) * 1000);
      return Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), 1) / 1000 - dayOffset;
    }
  }
}

/** The start of the bucket after the one that holds `t`. */
export function nextBucketStart(t: number, bucket: BucketSize, dayOffset: number): number {
  const start = bucketStart(t, bucket, dayOffset);
  switch (bucket) {
    case 'hour': return start + 3600;
    case 'day': return start + 86_400;
    case 'week': return start + 7 * 86_400;
    case 'month': {
      const wall = new Date((start + dayOffset) * 1000);
      return Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth() + 1, 1) / 1000 - dayOffset;
    }
  }
}

/** The smallest bucket boundary at or after `t`. */
export function bucketEnd(t: number, bucket: BucketSize, dayOffset: number): number {
  const start = bucketStart(t, bucket, dayOffset);
  return start === t ? t : nextBucketStart(t, bucket, dayOffset);
}

/** Every bucket start in [window.start, window.end). */
/** A period of a window: a bucket of the grid, cut to the window where it reaches past it (`partial`). */
export interface WindowPeriod {
  start: number;
  end: number;
  partial: boolean;
}

/** The window's periods of `bucket`: whole periods of the grid, the first and last cut to the window. */
export function periodsOf(window: UsageWindow, bucket: BucketSize, dayOffset: number): WindowPeriod[] {
  return bucketStarts(window, bucket, dayOffset).map((whole) => {
    const wholeEnd = nextBucketStart(whole, bucket, dayOffset);
    const start = Math.max(whole, window.start);
    const end = Math.min(wholeEnd, window.end);
    return { start, end, partial: start !== whole || end !== wholeEnd };
  });
}

export function bucketStarts(window: UsageWindow, bucket: BucketSize, dayOffset: number): number[] {
  const starts: number[] = [];
  for (let t = bucketStart(window.start, bucket, dayOffset); t < window.end; t = nextBucketStart(t, bucket, dayOffset)) starts.push(t);
  return starts;
}

const SPAN_UNITS: Record<string, number> = { m: 60, h: 3600, d: 86_400, w: 604_800 };
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

export interface TimeContext {
  /** Unix seconds. */
  now: number;
  /** Where spans count back from (the end of the current bucket, or now). */
  anchor: number;
  /** The zone of times written without an offset. */
  zone: Zone;
  /** The gateway's day grid (seconds east of UTC): a date alone names one of its days. */
  dayOffset?: number;
}

/** The help text of the window rule, for every command that takes --since/--until. */
export const WINDOW_HELP = {
  since: 'start of the window: a date (a day of the gateway\'s day grid), today, yesterday, a month YYYY-MM, an ISO date-time, Unix seconds, now, or a span back such as 90m, 36h, 7d, 2w',
  until: 'end of the window, exclusive (a date: the window stops before that day), same forms',
  month: 'the month YYYY-MM whole (instead of --since/--until)',
  last: 'the last complete day, week, month or quarter (instead of --since/--until)',
} as const;

export const LAST_PERIODS = ['day', 'week', 'month', 'quarter'] as const;
export type LastPeriod = (typeof LAST_PERIODS)[number];

/** Whether a --since/--until text names days of the gateway's grid (a date, a month, today, yesterday). */
export function isDateOnly(text: string | undefined): boolean {
  if (text === undefined) return false;
  const spec = text.trim();
  return /^\d{4}-\d{2}(-\d{2})?$/.test(spec) || spec === 'today' || spec === 'yesterday';
}

/** Whether a window's bounds name grid days, so the grid must be known before asking. */
export function namesGridDays(options: { since?: string; until?: string; month?: string; last?: string }): boolean {
  return isDateOnly(options.since) || isDateOnly(options.until) || options.month !== undefined || options.last !== undefined;
}

// A span as people write it: `7d`, `7 days`, `36h`, `90min`, `2 weeks`.
const SPAN_WORDS: Record<string, 'm' | 'h' | 'd' | 'w'> = { m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm', h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h', d: 'd', day: 'd', days: 'd', w: 'w', wk: 'w', wks: 'w', week: 'w', weeks: 'w' };

/** A span back (`7d`, `7 days`), or undefined; months and years, which have no fixed length, are answered with the forms to use. */
function spanOf(spec: string, text: string, flag: string): { count: number; unit: 'm' | 'h' | 'd' | 'w' } | undefined {
  const match = /^(\d{1,9})\s*([A-Za-z]{1,7})$/.exec(spec);
  if (!match) return undefined;
  const word = match[2]!;
  // `M` is not minutes in every hand: only the lower-case letter is.
  const unit = word === 'M' ? undefined : SPAN_WORDS[word.toLowerCase()];
  if (unit) return { count: Number(match[1]), unit };
  if (/^(M|mo|mon|mons|month|months|y|yr|yrs|year|years)$/i.test(word)) {
    throw new UsageError(`${flag} "${text}": months and years are not spans of a fixed length; use a month (2026-08), a date (2026-08-15), or days (90d)`);
  }
  return undefined;
}

/**
 * A time from the command line in Unix seconds: `now`, a span back from the anchor, Unix
 * seconds, or ISO 8601. Anything else, and any time outside 2000-2100, is a usage error that
 * names the flag.
 */
export function parseTimeSpec(text: string, context: TimeContext, flag = '--since'): number {
  const spec = text.trim();
  let seconds: number;
  const span = spanOf(spec, text, flag);
  const month = /^(\d{4})-(\d{2})$/.exec(spec);
  if (spec === 'now') seconds = context.now;
  else if (spec === 'today' || spec === 'yesterday') {
    // Grid days, as the tables label them (UTC when the grid is not known).
    const today = bucketStart(context.now, 'day', context.dayOffset ?? 0);
    seconds = spec === 'today' ? today : today - 86_400;
  } else if (month) {
    const [year, monthIndex] = [Number(month[1]), Number(month[2]) - 1];
    if (monthIndex < 0 || monthIndex > 11) throw new UsageError(`${flag} "${text}" is not a month (YYYY-MM, 01 to 12)`);
    seconds = Date.UTC(year, monthIndex, 1) / 1000 - (context.dayOffset ?? 0);
  } else if (span) seconds = context.anchor - span.count * SPAN_UNITS[span.unit]!;
  else if (/^\d+$/.test(spec)) {
    if (spec.length < 9 || spec.length > 11) throw new UsageError(`${flag} "${text}" is not a time: Unix seconds have 9 to 11 digits (or use an ISO date such as 2026-11-01)`);
    seconds = Number(spec);
  } else {
    const iso = ISO.exec(spec);
    if (!iso) {
      const hint = didYouMean(spec, ['now', 'today', 'yesterday']);
      throw new UsageError(`${flag} "${text}" is not a time (use an ISO date or date-time, Unix seconds, now, today, yesterday, or a span such as 90m, 36h, 7d, 2w)`, hint ? { hint } : {});
    }
    const [, y, mo, d, h = '00', mi = '00', s = '00', , zone] = iso;
    const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
    const wall = Date.UTC(...fields) / 1000;
    const check = new Date(wall * 1000);
    if (check.getUTCFullYear() !== fields[0] || check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) {
      throw new UsageError(`${flag} "${text}" is not a valid date`);
    }
    // A date alone is a day of the gateway's grid; a date-time without an offset is in the display zone.
    if (zone !== undefined) seconds = wall - zoneSeconds(zone);
    else if (iso[4] === undefined && context.dayOffset !== undefined) seconds = wall - context.dayOffset;
    else seconds = fromWallClock(wall, context.zone);
  }
  if (!(seconds >= EARLIEST && seconds <= LATEST)) {
    throw new UsageError(`${flag} "${text}" is outside the years 2000 to 2099 that tally reads`);
  }
  return seconds;
}

/** `Z`, `+08:00`, `-0530` as seconds east of UTC. */
export function zoneSeconds(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  const hours = Number(digits.slice(1, 3));
  const minutes = Number(digits.slice(3, 5));
  if (hours > 14 || minutes > 59) throw new UsageError(`UTC offset "${zone}" is out of range`);
  return sign * (hours * 3600 + minutes * 60);
}

export interface WindowInput {
  since?: string;
  until?: string;
  /** `--month YYYY-MM`: that month whole. */
  month?: string;
  /** `--last day|week|month|quarter`: the last complete one. */
  last?: string;
  /** Unix seconds. */
  now: number;
  /** The display zone: times written without an offset are read in it. */
  zone: Zone;
  /** The grid to lay the window on; undefined for an unbucketed window (logs: exact times, day defaults). */
  bucket: BucketSize | undefined;
  /**
   * The day grid's offset, when known. Unknown (day buckets only), the window is given in the
   * service's terms: it aligns both ends down to its own grid, and the end asked for is a day
   * past the last instant wanted, so that the day holding it is included.
   */
  dayOffset: number | undefined;
  /** How a calendar window was named (`--month 2027-01`), for what is said of it. */
  calendar?: string;
}

export interface ResolvedWindow extends UsageWindow {
  /** False when start/end are still to be aligned by the service (day grid unknown). */
  final: boolean;
}

/** The window a command covers (see the rule at the top of this file). */
export function resolveWindow(input: WindowInput): ResolvedWindow {
  // A calendar window is the window reported whatever the bucket: weeks or months that reach past
  // it are cut to it (see periodsOf), never widened to whole periods.
  if (input.month !== undefined || input.last !== undefined) {
    const coarse = input.bucket === 'week' || input.bucket === 'month';
    const calendar = input.month !== undefined ? `--month ${input.month}` : `--last ${input.last}`;
    return resolveWindow({ ...input, ...calendarBounds(input), month: undefined, last: undefined, calendar, ...(coarse && input.dayOffset !== undefined ? { bucket: 'day' as const } : {}) });
  }
  const grid = input.bucket ?? 'day';
  if (input.dayOffset === undefined && grid !== 'hour' && grid !== 'day') {
    throw new Error('weeks and months need a known day grid');
  }
  const offset = input.dayOffset ?? 0;
  const known = input.dayOffset !== undefined || grid === 'hour';
  // The end of the current bucket: exact on a known grid; for an unknown day grid any instant
  // in the next day, which the service aligns down to the same boundary.
  const endOfCurrent = known ? nextBucketStart(input.now, grid, offset) : input.now + 86_400;
  const anchor = input.bucket === undefined ? input.now : endOfCurrent;
  const context: TimeContext = { now: input.now, anchor, zone: input.zone, dayOffset: input.dayOffset };
  const until = input.until === undefined ? undefined : parseTimeSpec(input.until, context, '--until');
  const since = input.since === undefined ? undefined : parseTimeSpec(input.since, context, '--since');
  if (since !== undefined && until !== undefined && since >= until) {
    throw new UsageError(`--since (${input.since}) must be before --until (${input.until})`);
  }
  let end: number;
  if (until === undefined) end = input.bucket === undefined ? input.now : endOfCurrent;
  else if (input.bucket === undefined) end = until;
  // Nothing has happened after the current bucket: a window asked to run on into the future ends
  // there (never a run of buckets that cannot hold anything yet).
  else end = Math.min(known ? bucketEnd(until, grid, offset) : until + 86_399, endOfCurrent);
  let start: number;
  if (since !== undefined) start = input.bucket === undefined || !known ? since : bucketStart(since, grid, offset);
  else start = defaultStart(end, input.bucket, offset, known);
  // A period that has not begun is not an empty one: nothing can be said of it yet.
  const begun = input.bucket === undefined ? input.now : endOfCurrent;
  if (since !== undefined && (since > begun || (input.calendar !== undefined && since >= begun))) {
    throw new UsageError(`the window from ${input.calendar ?? `--since ${input.since}`} has not begun: it starts after ${input.bucket ? `the current ${input.bucket}` : 'now'} (ask for a period up to now)`);
  }
  if (since === undefined && start >= end) throw new UsageError(`--until (${input.until}) leaves no room for the default window before it; give --since too`);
  if (start >= end) throw new UsageError(`the window from --since ${input.since} to ${input.until === undefined ? 'now' : `--until ${input.until}`} is empty; ask for a window with time in it`);
  if (end - start > MAX_SPAN_DAYS * 86_400) {
    throw new UsageError(`the window from ${input.since ?? 'the default start'} to ${input.until ?? 'now'} is longer than ${MAX_SPAN_DAYS.toLocaleString('en-US')} days (ten years); ask for less`);
  }
  return { start, end, final: known };
}

/** --month and --last as --since/--until (Unix seconds on the grid, or a month), checked against each other. */
function calendarBounds(input: WindowInput): { since: string; until: string } {
  const given = [input.since !== undefined && '--since', input.until !== undefined && '--until', input.month !== undefined && '--month', input.last !== undefined && '--last'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} each name the window; give one of them`);
  const offset = input.dayOffset ?? 0;
  if (input.month !== undefined) {
    const month = /^(\d{4})-(\d{2})$/.exec(input.month.trim());
    if (!month || Number(month[2]) < 1 || Number(month[2]) > 12) throw new UsageError(`--month "${input.month}" is not a month (YYYY-MM, e.g. 2026-10)`);
    const start = Date.UTC(Number(month[1]), Number(month[2]) - 1, 1) / 1000 - offset;
    return { since: String(start), until: String(nextBucketStart(start, 'month', offset)) };
  }
  const last = input.last!.trim();
  if (!(LAST_PERIODS as readonly string[]).includes(last)) throw new UsageError(`--last "${input.last}" is not one of ${LAST_PERIODS.join(', ')}`);
  const now = input.now;
  if (last === 'day' || last === 'week' || last === 'month') {
    const end = bucketStart(now, last, offset);
    return { since: String(bucketStart(end - 1, last, offset)), until: String(end) };
  }
  // Quarters start on the 1st of January, April, July and October of the grid.
  const wall = new Date((bucketStart(now, 'month', offset) + offset) * 1000);
  const end = Date.UTC(wall.getUTCFullYear(), Math.floor(wall.getUTCMonth() / 3) * 3, 1) / 1000 - offset;
  const start = Date.UTC(new Date((end + offset) * 1000).getUTCFullYear(), new Date((end + offset) * 1000).getUTCMonth() - 3, 1) / 1000 - offset;
  return { since: String(start), until: String(end) };
}

function defaultStart(end: number, bucket: BucketSize | undefined, offset: number, known: boolean): number {
  const grid = bucket ?? 'day';
  const count = DEFAULT_COUNT[grid];
  if (grid === 'hour') return end - count * 3600;
  if (grid === 'day') {
    // Unbucketed windows (logs) take the same seven days as usage, today included: from the start
    // of the day six days before the one holding the end (the last instant before it).
    if (bucket === undefined) return bucketStart(end - 1, 'day', offset) - (count - 1) * 86_400;
    const base = end - count * 86_400;
    return known ? bucketStart(base, 'day', offset) : base;
  }
  let start = bucketStart(end - 1, grid, offset);
  for (let i = 1; i < count; i++) start = bucketStart(start - 1, grid, offset);
  return start;
}

/** The window on a grid learned after the request: both ends aligned down, as the service did. */
export function alignedByService(window: UsageWindow, bucket: 'hour' | 'day', dayOffset: number): UsageWindow {
  return { start: bucketStart(window.start, bucket, dayOffset), end: bucketStart(window.end, bucket, dayOffset) };
}

/**
 * Consecutive parts of at most 92 days covering [start, end), each answered whole by the service.
 * When the service aligns a part's ends itself (day grid unknown), it moves both down to the same
 * grid: a part of exactly 92 days stays 92 days, and the parts stay contiguous. (Parts of 91 days
 * would make a year five requests instead of four: two round trips through a pool of four.)
 */
export function splitWindow(window: UsageWindow): UsageWindow[] {
  const parts: UsageWindow[] = [];
  for (let start = window.start; start < window.end; start += MAX_WINDOW_SECONDS) {
    parts.push({ start, end: Math.min(start + MAX_WINDOW_SECONDS, window.end) });
  }
  return parts;
}

/** The wall-clock date of a bucket start on the day grid. */
export function gridDate(t: number, dayOffset: number): { year: number; month: number; day: number; weekday: number } {
  const wall = new Date((t + dayOffset) * 1000);
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate(), weekday: wall.getUTCDay() };
}

/** The wall clock of an instant in the display zone (re-exported for callers of this module). */
export { wallClock };

/** How a window is stated in every JSON document that covers one: Unix seconds beside ISO 8601 with the offset. */
export interface WindowJson {
  start: number;
  end: number;
  start_iso: string;
  end_iso: string;
}

export function windowJson(window: UsageWindow, zone: Zone): WindowJson {
  return { start: window.start, end: window.end, start_iso: isoInZone(window.start, zone), end_iso: isoInZone(window.end, zone) };
}
