// How sure a forecast is: a range around what the days ahead will cost, from the series' own
// day-to-day variation, and a backtest of the forecast's method over past weeks. Decimal
// arithmetic throughout: the projection at the ledger's full precision (it is the forecast's own
// figure, to the last digit); the spread, a statistic, in exact integers of 10^-12 yuan (decimal.js's
// square root and products of 400-digit quotients cost a sixth of a status run, for digits no
// range shows), the backtest's errors at 20 significant digits.
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

/** The precision of the backtest's statistics (an error in percent): 20 significant digits, more than any share shows. */
const Stat = Decimal.clone({ precision: 20 });
type Stat = InstanceType<typeof Stat>;

/** The share of outcomes the range is meant to hold. */
export const RANGE_COVERAGE = '0.8';
/** The two-sided normal quantile for 80% coverage. */
const Z_80 = 12815515655n;
const Z_SCALE = 10n ** 10n;
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
  const pattern = history.length >= PATTERN_DAYS ? weekdayMeans(history.slice(-Math.floor(history.length / 7) * 7), offsetMinutes) : undefined;
  // The spread around what the rule expects of each day: the history's own level times its
  // weekday's factor (the weekday's mean over the overall mean), in whole units of 10^-12 yuan.
  const spends = history.map((d) => units(d.spend));
  const level = spends.reduce((a, b) => a + b, 0n) / BigInt(history.length);
  const expectedOf = (day: number) => (pattern ? (level * (pattern.means.get(weekdayOf(day, offsetMinutes)) ?? pattern.overall)) / pattern.overall : level);
  let squares = 0n;
  for (let i = 0; i < history.length; i++) {
    const r = spends[i]! - expectedOf(history[i]!.day);
    squares += r * r;
  }
  const spread = squares / BigInt(history.length - 1); // units squared
  const weights = sum(horizon.map((h) => h.weight));
  const expected = pace.mul(weights);
  const w = units(weights);
  const variance = (spread * (w + (w * w) / (BigInt(basis.length) * UNIT))) / UNIT; // units squared
  const half = new Decimal(((Z_80 * sqrt(variance)) / Z_SCALE).toString()).div(UNIT.toString());
  // Derived amounts: the ledger's 8 places (half up), the low end never below zero.
  const places = derived;
  return { expected: places(expected), low: places(Decimal.max(ZERO, expected.minus(half))), high: places(expected.plus(half)), method: pattern ? 'weekday' : 'flat', days: history.length };
}

/** Each weekday's mean and the overall mean over whole weeks (units of 10^-12 yuan); undefined when nothing was spent. */
function weekdayMeans(days: DayAmount[], offsetMinutes: number): { means: Map<number, bigint>; overall: bigint } | undefined {
  const byWeekday = new Map<number, { total: bigint; count: bigint }>();
  let total = 0n;
  for (const d of days) {
    const spend = units(d.spend);
    total += spend;
    const w = weekdayOf(d.day, offsetMinutes);
    const entry = byWeekday.get(w) ?? { total: 0n, count: 0n };
    byWeekday.set(w, { total: entry.total + spend, count: entry.count + 1n });
  }
  const overall = total / BigInt(days.length);
  if (overall === 0n) return undefined;
  return { means: new Map([...byWeekday].map(([w, e]) => [w, e.total / e.count])), overall };
}

/** Statistics count in whole units of 10^-12 yuan: finer than any amount a range shows (8 places), and exact integer arithmetic. */
const UNIT = 10n ** 12n;
/** An amount in units (each day's spend is read once however many ranges the backtest measures it in). */
const unitCache = new WeakMap<Decimal, bigint>();
function units(amount: Decimal): bigint {
  let value = unitCache.get(amount);
  if (value === undefined) unitCache.set(amount, (value = BigInt(amount.toDecimalPlaces(12, Decimal.ROUND_HALF_UP).mul(UNIT.toString()).toFixed(0))));
  return value;
}

/** The integer square root, rounded down (Newton's method from above). */
export function sqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = 1n << BigInt((value.toString(2).length >> 1) + 1);
  for (;;) {
    const next = (x + value / x) >> 1n;
    if (next >= x) return x;
    x = next;
  }
}

function sum(values: Decimal[]): Decimal {
  return values.reduce((a, b) => a.plus(b), ZERO);
}

function statSum(values: Stat[]): Stat {
  return values.reduce((a, b) => a.plus(b), new Stat(0));
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
    const errorPercent = actual.isZero() ? undefined : new Decimal(new Stat(projected.minus(actual)).div(actual).mul(100));
    const inside = range ? actual.gte(range.low) && actual.lte(range.high) : undefined;
    results.push({ start, end, projected, range, actual, errorPercent, inside });
  }
  const errors = results.flatMap((w) => (w.errorPercent === undefined ? [] : [w.errorPercent.abs()]));
  const ranged = results.filter((w) => w.inside !== undefined);
  return { weeks: results, mape: errors.length ? new Decimal(statSum(errors.map((e) => new Stat(e))).div(errors.length)) : undefined, inside: ranged.filter((w) => w.inside).length, ranged: ranged.length };
}
