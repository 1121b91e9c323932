// How the forecast reads in a panel: the pace, the runway, the month, and today against the limit.
import type { Context } from '../context.js';
import { Decimal } from '../domain/money.js';
import { dateText, fixedZone, isoInZone, wallClock } from '../domain/zone.js';
import type { LoadedBacktest, LoadedForecast } from '../figures/forecast.js';
import { RANGE_COVERAGE } from '../domain/forecast-range.js';
import { groupDigits } from './money.js';
import { keyQuotaRows } from './key-quota.js';
import { describeGrid } from './usage.js';
import type { forecastJson } from '../figures/forecast.js';
import { type JsonNumber, type Parsed, numberText } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

/** The forecast's rows for a panel (forecast, status). */
export async function forecastRows(loaded: LoadedForecast, ctx: Context): Promise<[string, string][]> {
  const { formatAmount } = await import('./money.js');
  const { forecast: f, balance } = loaded;
  const zone = fixedZone(loaded.series.dayGrid.offset);
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency: balance.currency, exact: ctx.options.exact });
  const date = (t: number) => dateText(wallClock(t, zone));
  const runsOut = f.runsOutOn === null ? 'after the year 9999' : `on ${date(f.runsOutOn)}`;
  const what = f.runwayBasis === 'key_quota' ? "the key's own quota" : 'the balance';
  const rows: [string, string][] = [
    ['Average daily spend', `${amount(f.averageDailySpend)}  (${loaded.series.scope === 'account' ? "the whole account's, " : loaded.series.scope === 'key' ? "this key's, " : ''}the last ${f.basis.days} complete day${f.basis.days === 1 ? '' : 's'}, ${date(f.basis.start)} to ${date(f.basis.end - 1)}: ${amount(f.basis.spend)})`],
    ['Runway', f.runwayDays === null ? `no spend in that time: ${what} is not being used up` : `${wholeDays(f.runwayDays)}: ${what} runs out ${runsOut} at ${f.runwayBasis === 'key_quota' && f.keyPace ? keyPaceWords(f.keyPace, amount) : 'this pace'}${loaded.allowance.quota.state === 'unknown' ? " (the key's quota was not read: it may run out first)" : ''}`],
    ['This month', `${amount(f.monthToDate)} so far; ${amount(f.projectedMonthEnd)} projected by the month's end${f.monthRange && !f.monthRange.low.eq(f.monthRange.high) ? ` (${rangeLabel(f.monthRange)} ${amount(f.monthRange.low)} to ${amount(f.monthRange.high)}${f.monthRange.method === 'weekday' ? ', with the weekday pattern' : ''})` : ''}`],
  ];
  const today = f.today;
  if (today === null) rows.push(['Today', 'signed in with a device token: no key-level daily limit']);
  else if (today.used !== null) {
    const pace = today.projected === null ? '' : `; ${amount(today.projected)} projected by the day's end`;
    const limit = today.limit === null
      ? '; the key has no daily limit'
      : today.limitReachedAt === null ? `; the ${amount(today.limit)} limit is not reached at this pace` : `; the ${amount(today.limit)} limit is reached at ${isoInZone(today.limitReachedAt, zone).slice(11, 16)} at this pace`;
    rows.push(['Today', `${amount(today.used)} spent by this key${pace}${limit}`]);
  }
  return rows;
}

/** At which pace a key's quota is spent, in words: its own, the account's, or its daily limit. */
export function keyPaceWords(keyPace: NonNullable<LoadedForecast['forecast']['keyPace']>, amount: (value: Decimal) => string): string {
  if (keyPace.pace === 'key') return `the key's own pace (${amount(keyPace.daily)} a day)`;
  if (keyPace.pace === 'daily_limit') return `its daily limit of ${amount(keyPace.daily)} at most`;
  return `the account's pace (${amount(keyPace.daily)} a day; the key's own spend is not known)`;
}

/** `3,853 days`, for a whole number of days of any size. */
export function wholeDays(days: Decimal): string {
  return `${groupDigits(days.toFixed())} day${days.eq(1) ? '' : 's'}`;
}

export async function renderForecast(loaded: LoadedForecast, ctx: Context): Promise<string> {
  const [{ renderPanel }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
  ]);
  const style = await styleFor(ctx);
  const rows: [string, string][] = [['Balance', formatAmount(loaded.balance.balance, 'account', { currency: loaded.balance.currency, exact: ctx.options.exact })], ...keyQuotaRows(loaded.allowance.quota, ctx.options.exact), ...(await forecastRows(loaded, ctx))];
  const note = `${describeGrid(loaded.series)}; spend from usage field "${loaded.metric ?? 'none (no usage in 92 days)'}"`;
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** `forecast --backtest`: a row per week, then how far the method can be trusted. */
export async function renderBacktest(loaded: LoadedBacktest, ctx: Context): Promise<string> {
  const [{ renderTable }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./money.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const zone = fixedZone(loaded.series.dayGrid.offset);
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency: loaded.currency, exact: ctx.options.exact });
  const { result } = loaded;
  const coverage = `${new Decimal(RANGE_COVERAGE).mul(100).toFixed()}%`;
  const rows = result.weeks.map((w) => [
    dateText(wallClock(w.start, zone)),
    amount(w.projected),
    w.range ? `${amount(w.range.low)} to ${amount(w.range.high)}` : '—',
    amount(w.actual),
    w.errorPercent === undefined ? '—' : `${w.errorPercent.gt(0) ? '+' : ''}${w.errorPercent.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1)}%`,
    w.inside === undefined ? '—' : w.inside ? 'inside' : 'outside',
  ]);
  const table = await renderTable({ columns: [{ header: 'week of' }, { header: 'projected', align: 'decimal' }, { header: `range (${coverage})` }, { header: 'actual', align: 'decimal' }, { header: 'error', align: 'right' }, { header: 'outcome' }], rows }, style);
  const mape = result.mape === undefined ? 'no week spent anything, so no error can be measured' : `mean absolute percentage error ${result.mape.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1)}% over ${result.weeks.filter((w) => w.errorPercent !== undefined).length} weeks${result.mape.lte(12) ? ' (within 12%: what the FinOps Foundation calls a mature forecast)' : ' (more than the 12% the FinOps Foundation calls mature)'}`;
  const inside = result.ranged === 0 ? '' : `; the outcome fell inside the ${coverage} range ${result.inside} of ${result.ranged} times`;
  const method = `The forecast's method at each week's start: the average of the ${loaded.basisDays} complete days before it × 7; the range from the day-to-day variation of the days before it (each weekday with its own factor once four weeks are known).`;
  return `${table}${await fitLines(`${mape[0]!.toUpperCase()}${mape.slice(1)}${inside}.`, style.width)}\n${style.paint.dim(await fitLines(method, style.width))}\n`;
}

/** A runway in whole days, grouped as every count, marked where the key's own quota runs out first (its basis). */
export function runwayCell(days: JsonNumber | null, basis: string): string | undefined {
  if (days === null) return undefined;
  return `${groupDigits(numberText(days))}${basis === 'key_quota' ? ' (key quota)' : ''}`;
}

/** The forecast's row in the fleet's table. */
export const forecastFleetRow: FleetRow<Parsed<ReturnType<typeof forecastJson>>> = {
  columns: [
    { header: 'balance', value: (r) => r.balance, amount: true },
    { header: 'avg a day', value: (r) => r.average_daily_spend, amount: true },
    { header: 'runway days', value: (r) => runwayCell(r.runway_days, r.runway_basis), align: 'right' },
    { header: 'month projected', value: (r) => r.projected_month_end, amount: true, drop: 1 },
  ],
};

/**
 * What the range is: an 80% range, as its method means it; where the same method's range held far
 * less often over the past weeks (at most half of four or more), the label says what was measured.
 */
function rangeLabel(range: { coverage: string; held: { inside: number; weeks: number } | null }): string {
  const meant = `${groupDigits(new Decimal(range.coverage).mul(100).toFixed())}%`;
  const held = range.held;
  if (held && held.weeks >= 4 && held.inside * 2 <= held.weeks) return `a range meant to hold ${meant}, which held in ${held.inside} of the ${held.weeks} past weeks tried:`;
  return `${meant} range`;
}
