// Time zones as tally uses them: a fixed offset (`--utc-offset`, a gateway's day grid) or a named
// zone with daylight-saving changes (the machine's TZ). Every wall-clock label and every local
// time on the command line goes through one of these, so nothing depends on the process's zone
// unless the environment it was given says so (tests hand in their own TZ).
import { readlinkSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { didYouMean } from './suggest.js';

export interface Zone {
  /** Seconds east of UTC in force at this instant. */
  offsetAt(utcSeconds: number): number;
  /** How the zone is named for people: `UTC+08:00`, or an IANA name such as `America/New_York`. */
  readonly label: string;
  /** The offset when it never changes (a fixed zone); undefined for a named zone. */
  readonly fixedOffset: number | undefined;
}

/** `+08:00`, `-05:30`, `+00:00`. */
export function formatOffset(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

export function fixedZone(offsetSeconds: number): Zone {
  return { offsetAt: () => offsetSeconds, label: `UTC${formatOffset(offsetSeconds)}`, fixedOffset: offsetSeconds };
}

export const UTC: Zone = fixedZone(0);

/**
 * The zone a run's environment names: `TZ` when it differs from this process's own (a caller
 * that hands in its own environment), else the process's zone, read through Date, which is
 * the cheapest way. An unknown TZ name is UTC, as the C library treats it.
 */
export function zoneFromEnv(env: NodeJS.ProcessEnv): Zone {
  const name = env.TZ;
  if (name === undefined || name === process.env.TZ) return systemZone(name);
  return namedZone(name);
}

function systemZone(name: string | undefined): Zone {
  let label: string | undefined;
  return {
    offsetAt: (seconds) => -new Date(seconds * 1000).getTimezoneOffset() * 60,
    get label() {
      label ??= name || systemZoneName();
      return label;
    },
    fixedOffset: undefined,
  };
}

/** Names the C library and Intl treat as UTC, shown as `UTC` (as Intl names them). */
const UTC_ALIASES = new Set(['Etc/UTC', 'Etc/UCT', 'Etc/Universal', 'Etc/Zulu', 'UCT', 'Universal', 'Zulu']);

/**
 * The machine's zone name. Where /etc/localtime links into the zoneinfo database (Linux, macOS)
 * the link names it, read in a fraction of a millisecond; asking Intl loads ICU's zone data
 * (about 25 ms), so that is the fallback.
 */
function systemZoneName(): string {
  let named: string | undefined;
  try {
    named = zoneNameOfLink(readlinkSync('/etc/localtime'));
  } catch {
    // Not a link (a copy of the zone file, or none at all): ask Intl.
  }
  return named ?? (new Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time');
}

/**
 * The zone in effect as a budget stores it: an IANA name or UTC where one names it (`TZ` may be
 * `:Asia/Shanghai`, a zoneinfo path or a POSIX rule such as `CST-8`), else the offset in force
 * at `now` (±HH:MM). Never UTC by default when the zone in effect is not UTC.
 */
export function storableZone(zone: Zone, now: number): string {
  const label = zone.label.trim().replace(/^:/, '');
  if (parseZone(label)) return label;
  const linked = label.includes('/zoneinfo/') ? zoneNameOfLink(label) : undefined;
  if (linked && parseZone(linked)) return linked;
  // The C library's reading of a POSIX TZ is the process's; Intl names it when it can.
  const intl = new Intl.DateTimeFormat().resolvedOptions().timeZone as string | undefined;
  const named = intl ? parseZone(intl) : undefined;
  if (intl && named && named.offsetAt(now) === zone.offsetAt(now)) return intl;
  return formatOffset(zone.offsetAt(now));
}

/** A time as a spreadsheet reads it as a date: `2026-07-01`, or with `withTime` `2026-07-01 10:00`, in `zone`. */
export function spreadsheetDate(seconds: number, zone: Zone, withTime: boolean): string {
  const iso = isoInZone(seconds, zone);
  return withTime ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** The zone a link into the zoneinfo database names (`…/zoneinfo/Europe/Berlin`), if it names one. */
export function zoneNameOfLink(target: string): string | undefined {
  const found = /\/zoneinfo\/((?:[A-Za-z0-9_+-]{1,40}\/){0,2}[A-Za-z0-9_+-]{1,40})$/.exec(target);
  if (!found) return undefined;
  return UTC_ALIASES.has(found[1]!) ? 'UTC' : found[1]!;
}

/** The error for a value that names no zone, with the zone most likely meant (`Asia/Shangai`: Asia/Shanghai). */
/** Throws notAZone (for an expression that must give a zone). */
export function throwNotAZone(flag: string, text: string): never {
  throw notAZone(flag, text);
}

export function notAZone(flag: string, text: string): UsageError {
  const names = ['UTC', ...Intl.supportedValuesOf('timeZone')];
  const hint = didYouMean(text, names);
  return new UsageError(`${flag} "${text}" is not a zone: an IANA name (Asia/Shanghai, America/New_York), UTC, or +HH:MM`, hint ? { hint } : {});
}

/**
 * A zone as `--tz` names it: `UTC`, an offset `+HH:MM` (as zones use them), or an IANA name that
 * this platform's zone data knows (`Asia/Shanghai`); anything else is undefined (the caller says so).
 */
export function parseZone(text: string): Zone | undefined {
  const name = text.trim();
  if (/^(utc|z|gmt)$/i.test(name)) return { ...UTC, label: 'UTC' };
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(name);
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3]);
    if (![0, 30, 45].includes(Number(offset[3])) || minutes > 14 * 60 || (offset[1] === '-' && minutes > 12 * 60)) return undefined;
    return fixedZone((offset[1] === '-' ? -1 : 1) * minutes * 60);
  }
  if (!/^[A-Za-z][A-Za-z0-9_+/-]{1,63}$/.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return undefined;
  }
  return namedZone(name);
}

/** A zone by its IANA name, its offsets read from ICU (remembered per quarter hour: changes fall on those). */
export function namedZone(name: string): Zone {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: name.startsWith(':') ? name.slice(1) : name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return { ...UTC, label: 'UTC' };
  }
  const offsets = new Map<number, number>();
  return {
    offsetAt(seconds) {
      const quarter = Math.floor(seconds / 900);
      let offset = offsets.get(quarter);
      if (offset === undefined) {
        const at = quarter * 900;
        const parts: Record<string, number> = {};
        for (const part of format.formatToParts(at * 1000)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
        const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) / 1000;
        offset = wall - at;
        offsets.set(quarter, offset);
      }
      return offset;
    },
    label: name,
    fixedOffset: undefined,
  };
}

/** The wall clock of an instant in a zone. */
export interface WallClock {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday */
  weekday: number;
  /** Seconds east of UTC in force. */
  offset: number;
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the instants an ISO 8601 date (four-digit year) can name. */
export const FIRST_CALENDAR_SECOND = -62_135_596_800;
export const LAST_CALENDAR_SECOND = 253_402_300_799;

/** Whether an instant (Unix seconds) can be written as an ISO date in any zone (a day of margin each side). */
export function isCalendarSecond(t: number): boolean {
  return Number.isFinite(t) && t >= FIRST_CALENDAR_SECOND + 86_400 && t <= LAST_CALENDAR_SECOND - 86_400;
}

export function wallClock(utcSeconds: number, zone: Zone): WallClock {
  const offset = zone.offsetAt(utcSeconds);
  const date = new Date((utcSeconds + offset) * 1000);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    weekday: date.getUTCDay(),
    offset,
  };
}

/**
 * The instant at which a zone's clocks show `wall` (a wall-clock time written as if it were UTC
 * seconds). Across a change the offset of the moment itself is used: the first of two moments
 * when the clocks go back, and the moment after the gap when they go forward.
 */
export function fromWallClock(wall: number, zone: Zone): number {
  if (zone.fixedOffset !== undefined) return wall - zone.fixedOffset;
  // The offsets in force within a day either side: a change, if any, is between them.
  const offsets = [...new Set([zone.offsetAt(wall - 86_400), zone.offsetAt(wall), zone.offsetAt(wall + 86_400)])];
  const moments = offsets.map((offset) => wall - offset).filter((moment) => zone.offsetAt(moment) === wall - moment);
  // Clocks going back show this wall time twice: the earlier moment.
  if (moments.length > 0) return Math.min(...moments);
  // Clocks going forward skip it: read it with the offset before the change (after the gap).
  return wall - Math.min(...offsets);
}

/** ISO 8601 with the zone's offset: `2026-11-15T00:00:00+08:00`. */
export function isoInZone(utcSeconds: number, zone: Zone): string {
  const c = wallClock(utcSeconds, zone);
  return `${dateText(c)}T${two(c.hour)}:${two(c.minute)}:${two(c.second)}${formatOffset(c.offset)}`;
}

/** `2026-11-15` */
export function dateText(c: Pick<WallClock, 'year' | 'month' | 'day'>): string {
  const year = c.year >= 0 && c.year <= 9999 ? String(c.year).padStart(4, '0') : (c.year < 0 ? '-' : '+') + String(Math.abs(c.year)).padStart(6, '0');
  return `${year}-${two(c.month)}-${two(c.day)}`;
}

export function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
