// Where the profile's budgets stand: spend over each period added up from the usage hour buckets
// since it began (so a period follows the budget's zone exactly, whatever the gateway's day
// grid), and the projection at the forecast's average daily spend.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { type BudgetStanding, type StoredBudget, amountInYuan, budgetPeriod, budgetScope, checkBudget, countsPerModel, standing } from '../domain/budget.js';
import type { DisplayRate } from '../domain/display-currency.js';
import { type Period, elapsedOf } from '../domain/period.js';
import { globMatcher } from '../domain/glob.js';
import { type ModelSpendOver, spendPerModel } from './usage-by-model.js';
import { Decimal, derivedText, oneDecimal } from '../domain/money.js';
import { type UsageWindow, bucketStart, ended } from '../domain/window.js';
import { UTC, formatOffset, isoInZone, parseZone } from '../domain/zone.js';
import { type LoadedForecast, loadForecast, spendMetric } from './forecast.js';
import { bucketMoney, loadUsageSeries } from './usage-series.js';
import { storedNamesHint } from '../domain/suggest.js';

export const NO_BUDGETS = 'no budget is stored for this profile: `tally budget set monthly --amount 500 --period month` makes one';

export function budgetsHint(budgets: [string, StoredBudget][], typed?: string): string {
  return storedNamesHint(typed ?? '', budgets.map(([n]) => n), 'Budgets', NO_BUDGETS);
}

/** The profile's budgets, checked as `budget set` checks them. */
export async function storedBudgets(ctx: Context): Promise<[string, StoredBudget][]> {
  const record = await ctx.profileRecord();
  return Object.entries(record?.budgets ?? {}).map(([name, budget]) => [name, checkBudget(name, budget)]);
}

export interface BudgetFigures {
  name: string;
  budget: StoredBudget;
  /** The period measured (now's, or the one a report's window ends in), and the moment it is measured at. */
  period: Period;
  at: number;
  /** Where it stands; undefined when its spend cannot be told (`notMeasured` says why). */
  standing: BudgetStanding | undefined;
  notMeasured?: string;
  /**
   * A budget set in another currency: its amount as set, and the day's rate it is compared at
   * (`budget` is then in yuan at that rate; without a rate, as stored, and not measured).
   */
  setIn?: { currency: string; amount: string; rate?: DisplayRate };
}

export interface LoadedBudgets {
  currency: string;
  budgets: BudgetFigures[];
  forecast: LoadedForecast;
}

/**
 * Where the named budgets (all, when none is named) stand now. `forecast` may be given when the
 * caller has it already (status, check); its requests then are not made again.
 *
 * A budget of the whole account's spend of every model is added up from the usage hour buckets
 * of its period (so the period follows its zone exactly) and projected at the forecast's average
 * daily spend. One of this key's spend, or of some models, is read from spend per model over its
 * period and projected at the same spend's average over the forecast's days; where the gateway
 * does not say those figures are the key's (or the account's, for an account budget of some
 * models), the budget is not measured, never counted from another's spend.
 */
export async function loadBudgets(ctx: Context, names: string[], forecast?: Promise<LoadedForecast>, options: { within?: UsageWindow } = {}): Promise<LoadedBudgets> {
  const stored = await storedBudgets(ctx);
  for (const name of names) if (!stored.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(stored, name) });
  const chosen = names.length ? stored.filter(([n]) => names.includes(n)) : stored;
  const now = Math.floor(ctx.now() / 1000);
  const loading = forecast ?? loadForecast(ctx, { keyQuota: false });
  if (chosen.length === 0) return { currency: 'CNY', budgets: [], forecast: await loading };
  const at = chosen.map(([, b]) => standingMoment(b, now, options.within));
  const fromSeries = chosen.map(([, b]) => !b.group && !countsPerModel(b));
  // Whole UTC hours (the service's fast path): from the hour that holds the earliest start, to the last moment measured.
  const seriesAt = at.filter((_, i) => fromSeries[i]);
  const hoursRequest = seriesAt.length
    ? loadUsageSeries(ctx, { bucket: 'hour', since: String(Math.floor(Math.min(...seriesAt.map((a) => a.period.start)) / 3600) * 3600), ...(options.within === undefined ? {} : { until: String(Math.ceil(Math.max(...seriesAt.map((a) => a.measured)) / 3600) * 3600) }) })
    : undefined;
  const spendOver = (w: UsageWindow) => spendPerModel(ctx, w);
  const [loaded, hours, rates] = await Promise.all([loading, hoursRequest, dayRates(ctx, chosen.map(([, b]) => b))]);
  const metric = hours && spendMetric(hours, undefined);
  const basis = loaded.forecast.basis;
  // Spend per model is answered on the gateway's days: a period is measured from it where it
  // begins and ends on them (asked to the end of the running day, which the gateway reports as
  // it stands), and is not measured where its days begin at another hour (never another period's figure).
  const gridOffset = loaded.series.dayGrid.offset;
  const gridDays = at.map(({ period, measured }) => gridWindow(period, Math.min(measured, period.end), gridOffset));
  const periodSpend = chosen.map(([, b], i) => (fromSeries[i] || b.group || typeof gridDays[i] === 'string' ? undefined : spendOver(gridDays[i] as UsageWindow)));
  const budgets = await Promise.all(chosen.map(([name, budget], i) => measure(name, budget, i)));
  return { currency: loaded.balance.currency, budgets, forecast: loaded };

  async function measure(name: string, asSet: StoredBudget, i: number): Promise<BudgetFigures> {
    const { period, measured } = at[i]!;
    const past = measured <= now - 3600;
    const moment = past ? measured - 1 : now;
    // A budget set in another currency is compared in yuan at the day's rate (said in setIn), or not at all.
    const rated = inYuan(asSet, rates);
    const budget = 'budget' in rated ? rated.budget : asSet;
    const setIn = rated.setIn ? { setIn: rated.setIn } : {};
    const unmeasured = (why: string): BudgetFigures => ({ name, budget, period, at: moment, standing: undefined, notMeasured: why, ...setIn });
    const figures = (spent: Decimal, pace: Decimal): BudgetFigures => ({ name, budget, period, at: moment, standing: standing(budget, moment, spent, pace), ...setIn });
    if ('notMeasured' in rated) return unmeasured(rated.notMeasured);
    // A past standing is projected at its own pace then (deterministic: the same tomorrow).
    const ownPace = (spent: Decimal) => (measured - period.start <= 0 ? new Decimal(0) : spent.div(new Decimal(measured - period.start).div(86_400)));
    // The gateway's hours begin on the hour: a period that begins at half past is not theirs to add up.
    const offTheHour = period.start % 3600 !== 0 ? `its ${budget.period}s begin at ${isoInZone(period.start, parseZone(budget.zone)!).slice(11, 16)} in ${budget.zone}, and the gateway states its usage by whole hours` : undefined;
    if (budget.group) {
      // A group's spend, each of its accounts once, over the period so far, projected at the period's own pace.
      if (offTheHour) return unmeasured(offTheHour);
      const { groupSpendOver } = await import('./group-usage.js');
      const got = await groupSpendOver(ctx, budget.group, { start: period.start, end: Math.ceil(Math.min(measured, period.end) / 3600) * 3600 });
      return 'why' in got ? unmeasured(got.why) : figures(got.spent, ownPace(got.spent));
    }
    if (fromSeries[i]) {
      if (hours!.scope === 'key') return unmeasured("the gateway states its usage over time as this key's, so the whole account's spend cannot be told");
      if (offTheHour) return unmeasured(offTheHour);
      let spent = new Decimal(0);
      bucketMoney(hours!.buckets, metric).forEach((amount, j) => {
        const slot = hours!.slots[j]!;
        if (slot >= period.start && slot < period.end && slot < measured && amount !== undefined) spent = spent.plus(amount);
      });
      return figures(spent, past ? ownPace(spent) : loaded.forecast.averageDailySpend);
    }
    const days = gridDays[i]!;
    if (typeof days === 'string') return unmeasured(days);
    const over = await periodSpend[i]!;
    const why = perModelProblem(budget, over);
    if (why) return unmeasured(why);
    const spent = budgetSpend(budget, over);
    if (past || basis.days === 0) return figures(spent, ownPace(spent));
    const before = await spendOver({ start: basis.start, end: basis.end });
    const beforeWhy = perModelProblem(budget, before);
    // The pace of the same spend over the forecast's days; a period that cannot be read for it goes by the budget's own period so far.
    return figures(spent, beforeWhy ? ownPace(spent) : budgetSpend(budget, before).div(basis.days));
  }
}

/** A budget as it is stored (a figure's `budget` is in yuan where it was set in another currency). */
export function budgetAsSet(figures: Pick<BudgetFigures, 'budget' | 'setIn'>): StoredBudget {
  return figures.setIn ? { ...figures.budget, amount: figures.setIn.amount, currency: figures.setIn.currency } : figures.budget;
}

/** The day's rate of each currency the budgets are set in (asked once each), or why there is none. */
async function dayRates(ctx: Context, budgets: StoredBudget[]): Promise<Map<string, DisplayRate | { why: string }>> {
  const codes = [...new Set(budgets.flatMap((b) => (b.currency ? [b.currency] : [])))];
  if (codes.length === 0) return new Map();
  const { dayRate, rateSource } = await import('./display-rate.js');
  const source = await rateSource(ctx);
  return new Map(await Promise.all(codes.map(async (code) => [code, await dayRate(ctx, { currency: code, source })] as const)));
}

/** A budget as compared: in yuan (at the day's rate where it is set in another currency), or why it cannot be. */
function inYuan(budget: StoredBudget, rates: Map<string, DisplayRate | { why: string }>): { budget: StoredBudget; setIn?: BudgetFigures['setIn'] } | { notMeasured: string; setIn: BudgetFigures['setIn'] } {
  if (!budget.currency) return { budget };
  const { currency, ...inCny } = budget;
  const rate = rates.get(currency)!;
  if ('why' in rate) return { notMeasured: `it is set in ${currency}, and there is no rate for today: ${rate.why}`, setIn: { currency, amount: budget.amount } };
  return { budget: { ...inCny, amount: amountInYuan(budget, rate.rate) }, setIn: { currency, amount: budget.amount, rate } };
}

/**
 * The gateway's days that make up a period up to `until` (the running day whole: the gateway
 * reports it as it stands), or why they cannot: the period begins or ends between two of them.
 */
export function gridWindow(period: Period, until: number, gridOffset: number): UsageWindow | string {
  const onGrid = (t: number) => bucketStart(t, 'day', gridOffset) === t;
  if (!onGrid(period.start) || !onGrid(period.end)) {
    const grid = formatOffset(gridOffset);
    return `the gateway states spend per model by its own days, which begin at 00:00 UTC${grid} (${isoInZone(bucketStart(period.start, 'day', gridOffset), UTC).slice(11, 16)} UTC), and this budget's period begins or ends between two of them: set it in the gateway's zone (--tz ${grid}) to measure it`;
  }
  return { start: period.start, end: Math.min(period.end, bucketStart(Math.max(period.start, until - 1), 'day', gridOffset) + 86_400) };
}

/** Why spend per model over a window cannot measure a budget: the gateway says it is someone else's, or says nothing, or it is cut short. */
function perModelProblem(budget: StoredBudget, over: ModelSpendOver): string | undefined {
  const scope = budgetScope(budget);
  const whose = scope === 'key' ? "this key's" : "the whole account's";
  const what = `${whose} spend${budget.models ? ' of these models' : ''}`;
  if (over.scope !== scope) {
    const said = over.scope === undefined ? 'does not say whose its spend per model is' : `states its spend per model as ${over.scope === 'key' ? "this key's" : "the whole account's"}`;
    return `the gateway ${said}, so ${what} cannot be told`;
  }
  if (over.incomplete) return `the gateway's spend per model has more pages than tally reads, so ${what} is not whole`;
  // The one rule of spend per model: a model whose records state no amount tally can read is unknown, never zero.
  const matchers = budget.models?.map(globMatcher);
  const unread = over.unknown.filter((model) => !matchers || matchers.some((match) => match(model)));
  if (unread.length) return `the gateway states no amount tally can read for ${unread.slice(0, 3).join(', ')}${unread.length > 3 ? ` and ${unread.length - 3} more` : ''}, so ${what} cannot be told`;
  return undefined;
}

/** A budget's spend from spend per model: every model, or those its globs match. */
function budgetSpend(budget: StoredBudget, over: ModelSpendOver): Decimal {
  const matchers = budget.models?.map(globMatcher);
  let spent = new Decimal(0);
  for (const [model, amount] of over.spend) if (!matchers || matchers.some((match) => match(model))) spent = spent.plus(amount);
  return spent;
}

/**
 * The budget period a figure is for, and the moment it is measured at: now's period, measured
 * now; or, for a window of the past (a report), the period that holds the window's end in the
 * budget's own zone (a day of the gateway's grid may end hours into the next month there, so the
 * end is read a little earlier, at most half the window), measured at the end of either.
 */
function standingMoment(budget: StoredBudget, now: number, within: UsageWindow | undefined): { period: Period; measured: number } {
  if (!within || !ended(within, now)) return { period: budgetPeriod(budget, now), measured: now + 1 };
  const pick = within.end - 1 - Math.min(14 * 3600, Math.floor((within.end - within.start) / 2));
  const period = budgetPeriod(budget, pick);
  return { period, measured: Math.min(within.end, period.end) };
}

/** The ledger's 8 places at most, rounded half up. */
const ledger = derivedText;

export function budgetJson(loaded: LoadedBudgets) {
  return {
    budgets: loaded.budgets.map(({ name, budget, period, at, standing: s, notMeasured, setIn }) => {
      const zone = parseZone(budget.zone)!;
      const now = elapsedOf(period, at);
      return {
        name,
        // In yuan; a budget set in another currency without a rate today keeps its amount as set, in that currency.
        amount: ledger(new Decimal(budget.amount)),
        currency: budget.currency ?? loaded.currency,
        ...(setIn ? { set_in: { currency: setIn.currency, amount: setIn.amount, ...(setIn.rate ? { rate: setIn.rate.rate, rate_date: setIn.rate.date, rate_source: setIn.rate.source } : {}) } } : {}),
        period: budget.period,
        zone: budget.zone,
        scope: budgetScope(budget),
        ...(budget.models ? { models: budget.models } : {}),
        ...(budget.group ? { group: budget.group } : {}),
        start: period.start,
        end: period.end,
        start_iso: isoInZone(period.start, zone),
        end_iso: isoInZone(period.end, zone),
        spent: s ? ledger(s.spent) : null,
        percent: s ? oneDecimal(s.percent) : null,
        elapsed_percent: oneDecimal(s ? s.elapsedPercent : new Decimal(now.elapsed).div(now.length).mul(100)),
        projected: s ? ledger(s.projected) : null,
        resets_in_days: oneDecimal(s ? s.resetsInDays : new Decimal(now.left).div(86_400)),
        state: s ? s.state : 'not measured',
        ...(notMeasured ? { not_measured: notMeasured } : {}),
      };
    }),
  };
}
