// How a window is stated: in every JSON document that covers one (Unix seconds beside ISO 8601
// with the offset) and in every table footer (wall-clock ends and the zone of the labels).
import type { UsageWindow } from '../domain/window.js';
import { type Zone, dateText, formatOffset, two, wallClock } from '../domain/zone.js';

export { type WindowJson, windowJson } from '../domain/window.js';

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

export { plural } from '../domain/words.js';

export { gridMismatch } from '../figures/day-grid.js';
