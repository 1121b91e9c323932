// What a window's --since / --until / --utc-offset resolve to: the display zone (labels, times
// written without an offset) and the gateway's day grid when it is known before any usage comes
// back (a flag, the profile, or what an earlier run learned).
import type { Context } from '../context.js';
import { parseUtcOffset } from '../domain/offset.js';
import { type Zone, fixedZone, formatOffset } from '../domain/zone.js';
import { readLearnedGrid, rememberGrid } from '../settings/grid-cache.js';

export interface WindowOptions {
  since?: string;
  until?: string;
  month?: string;
  last?: string;
  utcOffset?: string;
}

/** Where the day grid's offset came from. */
export type GridSource = 'flag' | 'profile' | 'inferred' | 'learned' | 'assumed';

export interface DayGrid {
  /** Seconds east of UTC at which days start. */
  offset: number;
  source: GridSource;
  /** A grid --utc-offset or the profile named that the gateway's days turned out not to be on. */
  claimed?: DayGrid;
}

export interface TimeSettings {
  /** Where wall-clock times are read and shown (hours, log entries). */
  zone: Zone;
  /** The day grid, when a flag, the profile or an earlier run says what it is. */
  known: DayGrid | undefined;
}

/**
 * Where times are read and shown, and the day grid where a flag, the profile or an earlier run
 * says it: one figure of the computation (the profile and the learned grid read once, whoever asks).
 */
export async function timeSettings(ctx: Context, options: WindowOptions): Promise<TimeSettings> {
  const time = await ctx.figure(`time-settings|${options.utcOffset ?? ''}`, () => resolveTimeSettings(ctx, options));
  if (time.known) return time;
  // Learned by this computation since (a first run): what a later run reads from the file, now.
  const learned = ctx.settledFigure<DayGrid>(LEARNED_GRID);
  return learned && learned.source === 'inferred' ? { zone: time.zone, known: { offset: learned.offset, source: 'learned' } } : time;
}

/** The store's key of the grid a computation learned from the gateway's days (usage-series.ts knownDayGrid). */
export const LEARNED_GRID = 'day-grid-learned';

async function resolveTimeSettings(ctx: Context, options: WindowOptions): Promise<TimeSettings> {
  if (options.utcOffset !== undefined) {
    const offset = parseUtcOffset(options.utcOffset) * 60;
    return { zone: ctx.zoneGiven ? ctx.zone : fixedZone(offset), known: { offset, source: 'flag' } };
  }
  const settings = await ctx.settings();
  const configured = (await ctx.profileRecord())?.utc_offset;
  if (configured !== undefined) {
    const offset = parseUtcOffset(configured, `utc_offset of profile "${settings.profile}"`) * 60;
    return { zone: ctx.zoneGiven ? ctx.zone : fixedZone(offset), known: { offset, source: 'profile' } };
  }
  const learned = ctx.options.demo || !settings.baseUrl ? undefined : readLearnedGrid(await ctx.stateDir(), settings.baseUrl);
  return { zone: ctx.zone, known: learned === undefined ? undefined : { offset: learned, source: 'learned' } };
}

/** Remembers a grid inferred from usage for later runs; a state folder that cannot be written is only a warning. */
export async function rememberInferredGrid(ctx: Context, time: TimeSettings, offset: number): Promise<void> {
  if (ctx.options.demo || time.known?.offset === offset) return;
  const settings = await ctx.settings();
  if (!settings.baseUrl) return;
  try {
    rememberGrid(await ctx.stateDir(), settings.baseUrl, offset, ctx.now());
  } catch (error) {
    ctx.warn(`could not remember the gateway's day grid: ${(error as Error).message}`);
  }
}

/** What a --utc-offset (or utc_offset) the gateway's days are not on comes to, in words. */
export function gridMismatch(grid: DayGrid): string {
  const named = grid.claimed?.source === 'profile' ? "the profile's utc_offset" : '--utc-offset';
  return `the gateway's days start at 00:00 UTC${formatOffset(grid.offset)}, not on the UTC${formatOffset(grid.claimed!.offset)} grid ${named} names; days are labelled by the grid the gateway uses`;
}
