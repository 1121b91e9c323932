// How sure a forecast is: a range around what the days ahead will cost, from the series' own
// day-to-day variation, and a backtest of the forecast's method over past weeks. Exact decimal
// arithmetic throughout (the square root is decimal.js's, to its precision).
//
// The range for a horizon of days (weights: 1 a whole day, the share left of today):
// - the pace m is the average of the basis days (the forecast's);
// - the expected spend of the horizon is m x W, W the sum of weights: the forecast's own
//   projection, so the range is built around the point the forecast states (one method gives both);
// - with at least four weeks of complete days before the horizon, each weekday has a factor: its
//   mean over those weeks against their overall mean (a weekly pattern), and a day's variation is
//   measured around its weekday's level; with fewer days, around the overall level;
// - the spread s is the standard deviation of those days around that level; the sum over the
//   horizon varies by s^2 x W and the pace itself is uncertain by s^2 / basis days, so
//   V = s^2 x (W + W^2 / basis days);
// - the range is expected +/- z x sqrt(V), z the normal quantile of the coverage (80%: 1.2816),
//   never below zero.
import { Decimal, ZERO, derived } from './money.js';

/** The share of outcomes the range is meant to hold. */
export const RANGE_COVERAGE = '0.8';
/** The two-sided normal quantile for 80% coverage. */
const Z_80 = new Decimal('1.2815515655');
/** Complete days needed before the weekly pattern is used. */
export const PATTERN_DAYS = 28;
const DAY = 86_400;

export interface DayAmount {
  /** The day's start on the grid (Unix seconds). */
  day: number;
  spend: Decimal;
}

export interface HorizonDay {
  day: number;
  /** 1 for a whole day ahead, the share left of the day that runs. */
  weight: Decimal;
}

export interface SpendRange {
  expected: Decimal;
  low: Decimal;
  high: Decimal;
  method: 'weekday' | 'flat';
  /** Complete days the variation was measured over. */
  days: number;
}

/** The weekday (0 Sunday) of a grid day, in the grid's own zone. */
export function weekdayOf(day: number, offsetMinutes: number): number {
  return new Date((day + offsetMinutes * 60) * 1000).getUTCDay();
}

/**
 * The range of what the `horizon` days will cost, from the complete `history` days before them
 * (oldest first, days missing spent nothing) and the forecast's pace over its last `basisDays`.
 * Undefined with fewer than two days of history (no variation to measure).
 */
export function spendRange(history: DayAmount[], basisDays: number, horizon: HorizonDay[], offsetMinutes: number): SpendRange | undefined {
  if (history.length < 2 || basisDays < 1) return undefined;
  const basis = history.slice(-basisDays);
  const pace = sum(basis.map((d) => d.spend)).div(basis.length);
  const pattern = history.length >= PATTERN_DAYS ? weekdayFactors(history.slice(-Math.floor(history.length / 7) * 7), offsetMinutes) : undefined;
  const factor = (day: number) => pattern?.get(weekdayOf(day, offsetMinutes)) ?? new Decimal(1);
  // The spread around what the rule expects of each day: the history's own level times its weekday's factor.
  const level = sum(history.map((d) => d.spend)).div(history.length);
  const residuals = history.map((d) => d.spend.minus(level.mul(factor(d.day))));
  const spread = sum(residuals.map((r) => r.mul(r))).div(history.length - 1);
  const weights = sum(horizon.map((h) => h.weight));
  const expected = pace.mul(weights);
  const variance = spread.mul(weights.plus(weights.mul(weights).div(basis.length)));
  const half = Z_80.mul(variance.sqrt());
  // Derived amounts: the ledger's 8 places (half up), the low end never below zero.
  const places = derived;
  return { expected: places(expected), low: places(Decimal.max(ZERO, expected.minus(half))), high: places(expected.plus(half)), method: pattern ? 'weekday' : 'flat', days: history.length };
}

/** Each weekday's mean against the overall mean, over whole weeks; undefined when nothing was spent. */
function weekdayFactors(days: DayAmount[], offsetMinutes: number): Map<number, Decimal> | undefined {
  const overall = sum(days.map((d) => d.spend)).div(days.length);
  if (overall.isZero()) return undefined;
  const byWeekday = new Map<number, Decimal[]>();
  for (const d of days) {
    const w = weekdayOf(d.day, offsetMinutes);
    byWeekday.set(w, [...(byWeekday.get(w) ?? []), d.spend]);
  }
  const factors = new Map<number, Decimal>();
  for (const [w, amounts] of byWeekday) factors.set(w, sum(amounts).div(amounts.length).div(overall));
  return factors;
}

function sum(values: Decimal[]): Decimal {
  return values.reduce((a, b) => a.plus(b), ZERO);
}

/** The complete days of a series from `start` (inclusive) to `end` (exclusive), a zero for each day missing. */
export function daysBetween(series: DayAmount[], start: number, end: number): DayAmount[] {
  const byDay = new Map(series.map((d) => [d.day, d.spend]));
  const days: DayAmount[] = [];
  for (let day = start; day < end; day += DAY) days.push({ day, spend: byDay.get(day) ?? ZERO });
  return days;
}

export interface BacktestWeek {
  start: number;
  end: number;
  /** What the forecast's method projected at the week's start (its pace x 7), and its range. */
  projected: Decimal;
  range: SpendRange | undefined;
  actual: Decimal;
  /** (projected - actual) / actual in percent; undefined when nothing was spent that week. */
  errorPercent: Decimal | undefined;
  inside: boolean | undefined;
}

export interface Backtest {
  weeks: BacktestWeek[];
  /** Mean absolute percentage error over the weeks that spent something; undefined when none did. */
  mape: Decimal | undefined;
  inside: number;
  ranged: number;
}

/**
 * How the forecast's method would have done over the `weeks` whole weeks before `todayStart`:
 * at each week's start, the pace of the `basisDays` before it times 7 and the range from the days
 * before it (up to `historyDays`), against what the week cost.
 */
export function backtest(series: DayAmount[], todayStart: number, weeks: number, basisDays: number, historyDays: number, offsetMinutes: number): Backtest {
  const results: BacktestWeek[] = [];
  for (let i = weeks; i >= 1; i--) {
    const start = todayStart - i * 7 * DAY;
    const end = start + 7 * DAY;
    const history = daysBetween(series, start - historyDays * DAY, start);
    const basis = history.slice(-basisDays);
    const projected = sum(basis.map((d) => d.spend)).div(basis.length).mul(7);
    const horizon = daysBetween([], start, end).map((d) => ({ day: d.day, weight: new Decimal(1) }));
    const range = spendRange(history, basisDays, horizon, offsetMinutes);
    const actual = sum(daysBetween(series, start, end).map((d) => d.spend));
    const errorPercent = actual.isZero() ? undefined : projected.minus(actual).div(actual).mul(100);
    const inside = range ? actual.gte(range.low) && actual.lte(range.high) : undefined;
    results.push({ start, end, projected, range, actual, errorPercent, inside });
  }
  const errors = results.flatMap((w) => (w.errorPercent === undefined ? [] : [w.errorPercent.abs()]));
  const ranged = results.filter((w) => w.inside !== undefined);
  return { weeks: results, mape: errors.length ? sum(errors).div(errors.length) : undefined, inside: ranged.filter((w) => w.inside).length, ranged: ranged.length };
}
