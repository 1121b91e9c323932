// Forecast and runway, in exact decimal arithmetic:
// - average daily spend = spend of the last N complete days (the day grid's) / N;
// - runway = what is left / average, whole days rounded down, where what is left is the balance or
//   the key's own quota, whichever is less (the key's calls are part of the account's pace); it runs out on the date (day grid)
//   of now + balance / average days; both null when nothing was spent; the date is null too
//   when it falls after 9999-12-31 (no ISO date can name it; the runway still says how long);
// - month to date = spend since the 1st 00:00 of this month, today included; projected month end
//   = month to date + average × the days left in the month (fractions of a day included);
// - today, for a key with a daily limit: projected = used / the share of the day gone by; the
//   limit is reached at day start + (limit / used) × time gone by, when that falls within today.
import { Decimal, ZERO } from './money.js';
import { bucketStart, nextBucketStart } from './window.js';
import { LAST_CALENDAR_SECOND } from './zone.js';
import { RANGE_COVERAGE, type SpendRange, backtest, daysBetween, spendRange } from './forecast-range.js';

/** Past weeks the month's range is tried on, at most. */
const HELD_WEEKS = 8;

export interface DailySpend {
  /** Start of the day on the grid (Unix seconds). */
  day: number;
  spend: Decimal;
}

export interface ForecastInput {
  balance: Decimal;
  /** Spend per day, any order; days missing spent nothing. */
  days: DailySpend[];
  /** Complete days the average is taken over. */
  basisDays: number;
  /** Unix seconds. */
  now: number;
  dayOffset: number;
  /** The key's spend today and its daily limit; undefined for a device token (no key). */
  today: { used: Decimal | undefined; limit: Decimal | undefined } | undefined;
  /**
   * What the key's own total quota leaves, in the balance's unit, when it has one. It is spent
   * at most at the account's pace (the key's calls are part of the account's), so the runway is
   * that of whichever runs out first.
   */
  keyRemaining?: Decimal;
  /** The key's own average daily spend over the same days, where tally can know it (its by-model figures are the key's). */
  keyPace?: Decimal;
}

/** The pace the key's quota is spent at: its own; else the account's; in either case at most its daily limit. */
export type KeyPace = 'key' | 'account' | 'daily_limit';

export interface Forecast {
  basis: { days: number; start: number; end: number; spend: Decimal };
  averageDailySpend: Decimal;
  /** Whole days (exact: a tiny pace makes a runway no double holds), or null when nothing was spent. */
  runwayDays: Decimal | null;
  /** The day (its start on the grid) the balance runs out, or null (nothing spent, or after the year 9999). */
  runsOutOn: number | null;
  /** What runs out first at this pace: the balance, or the key's own quota. */
  runwayBasis: 'balance' | 'key_quota';
  /** Where the key has a quota: the pace it is spent at, and which (undefined without one). */
  keyPace?: { pace: KeyPace; daily: Decimal };
  monthToDate: Decimal;
  projectedMonthEnd: Decimal;
  /** What the month may end at (month to date + the range of the days left), with its coverage; null with fewer than two days of history. */
  /** The month's range, and how often the same method's range held over the past weeks the series covers (its coverage as measured). */
  monthRange: (SpendRange & { coverage: string; held: { inside: number; weeks: number } | null }) | null;
  today: { used: Decimal | null; limit: Decimal | null; projected: Decimal | null; limitReachedAt: number | null } | null;
}

const DAY = 86_400;

export function forecast(input: ForecastInput): Forecast {
  const { now, dayOffset } = input;
  const todayStart = bucketStart(now, 'day', dayOffset);
  const basisStart = todayStart - input.basisDays * DAY;
  const monthStart = bucketStart(now, 'month', dayOffset);
  const monthEnd = nextBucketStart(now, 'month', dayOffset);
  let basisSpend = ZERO;
  let monthToDate = ZERO;
  for (const { day, spend } of input.days) {
    if (day >= basisStart && day < todayStart) basisSpend = basisSpend.plus(spend);
    if (day >= monthStart && day < monthEnd && day <= now) monthToDate = monthToDate.plus(spend);
  }
  const average = input.basisDays > 0 ? basisSpend.div(input.basisDays) : ZERO;
  let runwayDays: Decimal | null = null;
  let runsOutOn: number | null = null;
  // The key's quota is spent at the key's own pace (else the account's), never faster than its daily limit allows.
  const keyPace = input.keyRemaining === undefined ? undefined : paceOfKey(input.keyPace, average, input.today?.limit);
  const lastsFor = (remaining: Decimal, pace: Decimal) => (pace.gt(0) ? Decimal.max(remaining, 0).div(pace) : undefined);
  const balanceLasts = lastsFor(input.balance, average);
  const keyLasts = keyPace && lastsFor(input.keyRemaining!, keyPace.daily);
  const keyFirst = keyLasts !== undefined && (balanceLasts === undefined || keyLasts.lt(balanceLasts));
  const lasts = keyFirst ? keyLasts : balanceLasts;
  if (lasts !== undefined) {
    runwayDays = lasts.floor();
    // Where the balance ends: now plus that many days, as a day of the grid, while a date can name it.
    const end = lasts.mul(DAY).floor().plus(now);
    if (end.lte(LAST_CALENDAR_SECOND - DAY)) runsOutOn = bucketStart(end.toNumber(), 'day', dayOffset);
  }
  const daysLeft = new Decimal(monthEnd - now).div(DAY);
  const projectedMonthEnd = monthToDate.plus(average.mul(daysLeft));
  // The range: the complete days the series holds (at most 91 before today; days missing spent
  // nothing, as for the average), and the days left of the month, today's share of it first.
  const earliest = Math.min(basisStart, ...input.days.map((d) => d.day).filter((day) => day >= todayStart - 91 * DAY));
  const horizon = [{ day: todayStart, weight: new Decimal(todayStart + DAY - now).div(DAY) }];
  for (let day = todayStart + DAY; day < monthEnd; day = nextBucketStart(day, 'day', dayOffset)) horizon.push({ day, weight: new Decimal(Math.min(DAY, monthEnd - day)).div(DAY) });
  const range = spendRange(daysBetween(input.days, earliest, todayStart), input.basisDays, horizon, dayOffset);
  // How the method did over the whole weeks the series covers (with four weeks of history before each): its coverage as measured.
  const weeks = Math.min(HELD_WEEKS, Math.floor((todayStart - earliest) / DAY / 7) - 4);
  const tried = range && weeks >= 1 ? backtest(input.days, todayStart, weeks, input.basisDays, 28, dayOffset) : undefined;
  return {
    basis: { days: input.basisDays, start: basisStart, end: todayStart, spend: basisSpend },
    averageDailySpend: average,
    runwayDays,
    runsOutOn,
    runwayBasis: keyFirst ? 'key_quota' : 'balance',
    ...(keyPace ? { keyPace } : {}),
    monthToDate,
    projectedMonthEnd,
    // Built around the projection itself (its middle is the point the forecast states, to the last digit).
    monthRange: range ? { ...range, expected: projectedMonthEnd, low: Decimal.max(monthToDate, projectedMonthEnd.minus(range.high.minus(range.expected))), high: projectedMonthEnd.plus(range.high.minus(range.expected)), coverage: RANGE_COVERAGE, held: tried && tried.ranged > 0 ? { inside: tried.inside, weeks: tried.ranged } : null } : null,
    today: input.today ? todayForecast(input.today, now, todayStart) : null,
  };
}

function paceOfKey(own: Decimal | undefined, account: Decimal, limit: Decimal | undefined): { pace: KeyPace; daily: Decimal } {
  const pace = own ?? account;
  if (limit !== undefined && !limit.isZero() && limit.lt(pace)) return { pace: 'daily_limit', daily: limit };
  return { pace: own === undefined ? 'account' : 'key', daily: pace };
}

function todayForecast(today: NonNullable<ForecastInput['today']>, now: number, todayStart: number): NonNullable<Forecast['today']> {
  const used = today.used ?? null;
  const limit = today.limit !== undefined && !today.limit.isZero() ? today.limit : null;
  const elapsed = now - todayStart;
  let projected: Decimal | null = null;
  if (used !== null) projected = elapsed > 0 ? used.mul(DAY).div(elapsed) : used;
  let limitReachedAt: number | null = null;
  if (used !== null && limit !== null && used.gt(0) && projected !== null && projected.gte(limit)) {
    // At today's pace the limit is reached after (limit / used) of the time gone by.
    limitReachedAt = todayStart + Math.floor(limit.div(used).mul(elapsed).toNumber());
  }
  return { used, limit, projected, limitReachedAt };
}
