// What in a spend series a person should look at, as pure rules (property-tested):
// - a spike: a bucket far above its trailing median, measured in median absolute deviations
//   (robust: one earlier spike does not hide the next), at least `minRatio` times the median and
//   at least `minAmount`, so that ¥0.01 → ¥0.05 is not news;
// - growth: spend rising period over period, each step by at least `minStepPercent`.
// Every threshold scales with the series: multiplying all amounts (and the minimum) by the same
// factor finds the same buckets.
import { Decimal } from './money.js';

export interface SpikeRule {
  /** Buckets the baseline is taken from (the trailing window). */
  baseline: number;
  /** How many scaled median absolute deviations above the median a spike is. */
  deviations: number;
  /** How many times the median a spike is at least. */
  minRatio: number;
  /** The least amount a spike has. */
  minAmount: Decimal;
  /** Buckets between two of the baseline: 1 for days; 24 for hours (the same hour of the days before, so a busy afternoon is set against afternoons). */
  stride?: number;
}

export const DEFAULT_SPIKE_RULE = { deviations: 5, minRatio: 2 } as const;

/** The factor that makes the median absolute deviation estimate a standard deviation (normal data). */
const MAD_SCALE = new Decimal('1.4826');
/** A floor for the spread, as a share of the median: a flat baseline is not infinitely sensitive. */
const SPREAD_FLOOR = new Decimal('0.1');

export interface Spike {
  /** The bucket's index in the series. */
  index: number;
  amount: Decimal;
  /** The trailing median it is measured against. */
  baseline: Decimal;
  /** amount / baseline; null when the baseline is zero. */
  ratio: Decimal | null;
}

export function median(values: readonly Decimal[]): Decimal {
  if (values.length === 0) return new Decimal(0);
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : sorted[mid - 1]!.plus(sorted[mid]!).div(2);
}

/**
 * The buckets a baseline is taken from: the `size` before `index` (every `stride`-th); at the
 * start of a series, where fewer precede it, completed with those that follow (never the bucket itself).
 */
export function baselineOf(values: readonly Decimal[], index: number, size: number, stride = 1): Decimal[] {
  const before: Decimal[] = [];
  for (let i = index - stride; i >= 0 && before.length < size; i -= stride) before.unshift(values[i]!);
  for (let i = index + stride; i < values.length && before.length < size; i += stride) before.push(values[i]!);
  return before;
}

/** The buckets (from `from` on: earlier ones are history for the baseline only) that are spikes under `rule`. */
export function findSpikes(values: readonly Decimal[], rule: SpikeRule, from = 0): Spike[] {
  const spikes: Spike[] = [];
  if (values.length < 2) return spikes;
  for (let i = Math.max(0, from); i < values.length; i++) {
    const amount = values[i]!;
    if (amount.lt(rule.minAmount) || amount.isZero()) continue;
    const window = baselineOf(values, i, rule.baseline, rule.stride ?? 1);
    if (window.length === 0) continue;
    const middle = median(window);
    const spread = Decimal.max(median(window.map((v) => v.minus(middle).abs())).mul(MAD_SCALE), middle.mul(SPREAD_FLOOR));
    if (amount.minus(middle).lte(spread.mul(rule.deviations))) continue;
    if (amount.lt(middle.mul(rule.minRatio))) continue;
    spikes.push({ index: i, amount, baseline: middle, ratio: middle.isZero() ? null : amount.div(middle) });
  }
  return spikes;
}

export interface Growth {
  /** The periods' amounts, oldest first. */
  amounts: Decimal[];
  /** The smallest step, in percent. */
  smallestStep: Decimal;
}

/**
 * Steady growth: every period above the one before by at least `minStepPercent`, the first above
 * zero and the last at least `minAmount`. Undefined otherwise (or with fewer than two periods).
 */
export function findGrowth(amounts: readonly Decimal[], minStepPercent: Decimal, minAmount: Decimal): Growth | undefined {
  if (amounts.length < 2 || amounts[0]!.lte(0) || amounts[amounts.length - 1]!.lt(minAmount)) return undefined;
  let smallest: Decimal | undefined;
  for (let i = 1; i < amounts.length; i++) {
    const step = amounts[i]!.minus(amounts[i - 1]!).div(amounts[i - 1]!).mul(100);
    if (step.lt(minStepPercent)) return undefined;
    smallest = smallest === undefined || step.lt(smallest) ? step : smallest;
  }
  return { amounts: [...amounts], smallestStep: smallest! };
}

/** The change from `before` to `after`, in percent; null when `before` is zero (there is no share of nothing). */
export function changePercent(before: Decimal, after: Decimal): Decimal | null {
  return before.isZero() ? null : after.minus(before).div(before).mul(100);
}
