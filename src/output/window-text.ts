// How a window is stated: in every JSON document that covers one (Unix seconds beside ISO 8601
// with the offset) and in every table footer (wall-clock ends and the zone of the labels).
import type { UsageWindow } from '../domain/window.js';
import type { DayGrid } from '../figures/day-grid.js';
import { groupDigits } from './money.js';
import { type Zone, dateText, formatOffset, isoInZone, two, wallClock } from '../domain/zone.js';

export interface WindowJson {
  start: number;
  end: number;
  start_iso: string;
  end_iso: string;
}

export function windowJson(window: UsageWindow, zone: Zone): WindowJson {
  return { start: window.start, end: window.end, start_iso: isoInZone(window.start, zone), end_iso: isoInZone(window.end, zone) };
}

/** `2026-11-16 00:00` */
export function wallText(seconds: number, zone: Zone): string {
  const c = wallClock(seconds, zone);
  return `${dateText(c)} ${two(c.hour)}:${two(c.minute)}`;
}

/**
 * `window 2026-11-16 00:00 → 2026-11-23 00:00 UTC+08:00 (7 days)`; a zone with daylight saving
 * names the offset at each end: `(America/New_York, UTC-04:00 → UTC-05:00)`.
 */
export function describeWindow(window: UsageWindow, zone: Zone, length?: string): string {
  let where: string;
  if (zone.fixedOffset !== undefined) where = zone.label;
  else {
    const a = formatOffset(zone.offsetAt(window.start));
    const b = formatOffset(zone.offsetAt(window.end));
    where = `${zone.label}, UTC${a}${a === b ? '' : ` → UTC${b}`}`;
  }
  return `window ${wallText(window.start, zone)} → ${wallText(window.end, zone)} ${zone.fixedOffset !== undefined ? where : `(${where})`}${length ? ` (${length})` : ''}`;
}

/** `7 days`, `1 hour`, `24 hours`. */
export function plural(count: number, noun: string): string {
  return `${groupDigits(String(count))} ${noun}${count === 1 ? '' : 's'}`;
}

/** What a --utc-offset (or utc_offset) the gateway's days are not on comes to, in words. */
export function gridMismatch(grid: DayGrid): string {
  const named = grid.claimed?.source === 'profile' ? "the profile's utc_offset" : '--utc-offset';
  return `the gateway's days start at 00:00 UTC${formatOffset(grid.offset)}, not on the UTC${formatOffset(grid.claimed!.offset)} grid ${named} names; days are labelled by the grid the gateway uses`;
}
