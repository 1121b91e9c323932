// Where the profile's budgets stand: spend over each period added up from the usage hour buckets
// since it began (so a period follows the budget's zone exactly, whatever the gateway's day
// grid), and the projection at the forecast's average daily spend.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type BudgetStanding, type StoredBudget, checkBudget, standing } from '../domain/budget.js';
import { Decimal } from '../domain/money.js';
import type { UsageWindow } from '../domain/window.js';
import { isoInZone, parseZone } from '../domain/zone.js';
import { type LoadedForecast, loadForecast, spendMetric } from './forecast.js';
import { loadUsageSeries } from './usage-series.js';
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
  standing: BudgetStanding;
}

export interface LoadedBudgets {
  currency: string;
  budgets: BudgetFigures[];
  forecast: LoadedForecast;
}

/**
 * Where the named budgets (all, when none is named) stand now. `forecast` may be given when the
 * caller has it already (status, check); its requests then are not made again.
 */
export async function loadBudgets(ctx: Context, names: string[], forecast?: Promise<LoadedForecast>, options: { within?: UsageWindow } = {}): Promise<LoadedBudgets> {
  const stored = await storedBudgets(ctx);
  for (const name of names) if (!stored.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(stored, name) });
  const chosen = names.length ? stored.filter(([n]) => names.includes(n)) : stored;
  const now = Math.floor(ctx.now() / 1000);
  if (chosen.length === 0) return { currency: 'CNY', budgets: [], forecast: await (forecast ?? loadForecast(ctx, { keyQuota: false })) };
  const at = chosen.map(([, b]) => standingMoment(b, now, options.within));
  const periods = at.map((a) => a.period);
  // Whole UTC hours (the service's fast path): from the hour that holds the earliest start, to the last moment measured.
  const since = Math.floor(Math.min(...periods.map((p) => p.start)) / 3600) * 3600;
  const until = Math.max(...at.map((a) => a.measured));
  const [loaded, hours] = await Promise.all([
    forecast ?? loadForecast(ctx, { keyQuota: false }),
    loadUsageSeries(ctx, { bucket: 'hour', since: String(since), ...(options.within === undefined ? {} : { until: String(Math.ceil(until / 3600) * 3600) }) }),
  ]);
  const metric = spendMetric(hours, undefined);
  const budgets = chosen.map(([name, budget], i) => {
    const { period, measured } = at[i]!;
    const first = Math.floor(period.start / 3600) * 3600;
    let spent = new Decimal(0);
    hours.buckets.forEach((bucket, j) => {
      const slot = hours.slots[j]!;
      const value = metric === undefined ? undefined : bucket[metric];
      if (slot >= first && slot < period.end && slot < measured && isDecimalString(value)) spent = spent.plus(value);
    });
    // A past standing is projected at its own pace then (deterministic: the same tomorrow); a
    // standing now at the forecast's average daily spend.
    const past = measured <= now - 3600;
    const elapsedDays = new Decimal(measured - period.start).div(86_400);
    const pace = past ? (elapsedDays.isZero() ? new Decimal(0) : spent.div(elapsedDays)) : loaded.forecast.averageDailySpend;
    return { name, budget, standing: standing(budget, past ? measured - 1 : now, spent, pace) };
  });
  return { currency: loaded.balance.currency, budgets, forecast: loaded };
}

/**
 * The budget period a figure is for, and the moment it is measured at: now's period, measured
 * now; or, for a window of the past (a report), the period that holds the window's end in the
 * budget's own zone (a day of the gateway's grid may end hours into the next month there, so the
 * end is read a little earlier, at most half the window), measured at the end of either.
 */
function standingMoment(budget: StoredBudget, now: number, within: UsageWindow | undefined): { period: { start: number; end: number }; measured: number } {
  if (!within || within.end > now) return { period: standing(budget, now, new Decimal(0), new Decimal(0)).period, measured: now + 1 };
  const pick = within.end - 1 - Math.min(14 * 3600, Math.floor((within.end - within.start) / 2));
  const period = standing(budget, pick, new Decimal(0), new Decimal(0)).period;
  return { period, measured: Math.min(within.end, period.end) };
}

/** One decimal, rounded half up, as text. */
export const oneDecimal = (value: Decimal) => value.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1);

/** The ledger's 8 places at most, rounded half up. */
const ledger = (value: Decimal) => value.toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed();

export function budgetJson(loaded: LoadedBudgets) {
  return {
    budgets: loaded.budgets.map(({ name, budget, standing: s }) => {
      const zone = parseZone(budget.zone)!;
      return {
        name,
        amount: ledger(s.amount),
        currency: loaded.currency,
        period: budget.period,
        zone: budget.zone,
        start: s.period.start,
        end: s.period.end,
        start_iso: isoInZone(s.period.start, zone),
        end_iso: isoInZone(s.period.end, zone),
        spent: ledger(s.spent),
        percent: oneDecimal(s.percent),
        elapsed_percent: oneDecimal(s.elapsedPercent),
        projected: ledger(s.projected),
        resets_in_days: oneDecimal(s.resetsInDays),
        state: s.state,
      };
    }),
  };
}
