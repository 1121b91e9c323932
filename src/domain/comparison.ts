// Two periods side by side: which period a window is compared with (`--compare previous`,
// `last-year`, a month, or DATE..DATE), and the rows of the comparison, sorted by the size of the change.
import { UsageError } from '../errors.js';
import { changePercent } from './anomalies.js';
import { Decimal } from './money.js';
import { didYouMean } from './suggest.js';
import { type UsageWindow, bucketStart, nextBucketStart, resolveWindow } from './window.js';
import type { Zone } from './zone.js';

export interface ComparedWindowInput {
  /** The window asked for, on the day grid. */
  current: UsageWindow;
  /** `previous`, `last-year` (the same dates a year before), `YYYY-MM`, or `DATE..DATE` (read as --since and --until). */
  spec: string;
  /** How the current window was named: a calendar month or period is compared with the one before it. */
  month?: string;
  last?: string;
  dayOffset: number;
  now: number;
  zone: Zone;
}

/** The period a window is compared with. */
export function comparedWindow(input: ComparedWindowInput): UsageWindow {
  const spec = input.spec.trim();
  const { current, dayOffset: offset } = input;
  if (spec === 'previous') {
    // A calendar month, or the last day, week, month or quarter: the one before it, whatever its length.
    if (input.month !== undefined || input.last === 'month' || input.last === 'quarter') {
      const months = input.last === 'quarter' ? 3 : 1;
      let start = current.start;
      for (let i = 0; i < months; i++) start = bucketStart(start - 1, 'month', offset);
      return { start, end: current.start };
    }
    const length = current.end - current.start;
    return { start: current.start - length, end: current.start };
  }
  if (spec === 'last-year') return { start: yearBefore(current.start, offset), end: yearBefore(current.end, offset) };
  // The period's own errors are said of --compare, where it was written.
  const named = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof UsageError) throw new UsageError(`--compare "${input.spec}": ${error.message.replace(/^--(since|until|month) /, '')}`);
      throw error;
    }
  };
  const range = /^(.+?)\.\.(.+)$/.exec(spec);
  if (range) {
    const window = named(() => resolveWindow({ since: range[1]!.trim(), until: range[2]!.trim(), now: input.now, zone: input.zone, bucket: 'day', dayOffset: offset }));
    return { start: window.start, end: window.end };
  }
  if (/^\d{4}-\d{2}$/.test(spec)) {
    const window = named(() => resolveWindow({ month: spec, now: input.now, zone: input.zone, bucket: 'day', dayOffset: offset }));
    return { start: window.start, end: nextBucketStart(window.start, 'month', offset) };
  }
  const hint = didYouMean(spec, ['previous', 'last-year']);
  throw new UsageError(`--compare "${input.spec}" is not previous, last-year, a month (YYYY-MM) or DATE..DATE (e.g. 2026-09-01..2026-10-01)`, hint ? { hint } : {});
}

/**
 * The same instant of the day grid's wall clock one year before: the same month, day and time (the
 * 29th of February, in a year without one, is the 28th).
 */
export function yearBefore(t: number, dayOffset: number): number {
  const wall = new Date((t + dayOffset) * 1000);
  const year = wall.getUTCFullYear() - 1;
  const lastDay = new Date(Date.UTC(year, wall.getUTCMonth() + 1, 0)).getUTCDate();
  const shifted = Date.UTC(year, wall.getUTCMonth(), Math.min(wall.getUTCDate(), lastDay), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds()) / 1000;
  return shifted - dayOffset;
}

export interface ComparisonRow {
  /** Undefined for the one row of a comparison of totals. */
  model?: string;
  current: Decimal;
  previous: Decimal;
  change: Decimal;
  /** null when the previous amount is zero. */
  changePercent: Decimal | null;
  /** A model that costs money now and did not before (`new`), or did before and does not now (`gone`). */
  status?: 'new' | 'gone';
}

/** A row of two amounts. */
export function comparisonRow(current: Decimal, previous: Decimal, model?: string): ComparisonRow {
  const status = model === undefined ? undefined : previous.isZero() && !current.isZero() ? 'new' : current.isZero() && !previous.isZero() ? 'gone' : undefined;
  return { ...(model === undefined ? {} : { model }), current, previous, change: current.minus(previous), changePercent: changePercent(previous, current), ...(status ? { status } : {}) };
}

/** One row per model of either period, the largest change (up or down) first, ties by name. */
export function compareByModel(current: ReadonlyMap<string, Decimal>, previous: ReadonlyMap<string, Decimal>): ComparisonRow[] {
  const models = [...new Set([...current.keys(), ...previous.keys()])];
  const zero = new Decimal(0);
  return models
    .map((model) => comparisonRow(current.get(model) ?? zero, previous.get(model) ?? zero, model))
    .sort((a, b) => b.change.abs().comparedTo(a.change.abs()) || (a.model! < b.model! ? -1 : a.model! > b.model! ? 1 : 0));
}

/** The totals of a comparison by model: every row added up. */
export function totalRow(rows: readonly ComparisonRow[]): ComparisonRow {
  const sum = (pick: (r: ComparisonRow) => Decimal) => rows.reduce((acc, r) => acc.plus(pick(r)), new Decimal(0));
  return comparisonRow(sum((r) => r.current), sum((r) => r.previous));
}
