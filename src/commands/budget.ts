// tally budget: amounts for periods that reset, stored per profile, and where the spend stands.
//   tally budget set NAME --amount A --period day|week|month [--starts N] [--tz ZONE]
//   tally budget list | tally budget rm NAME | tally budget [NAME...]
// Spend over a period is added up from the usage hour buckets since it began, so a period
// follows the budget's zone exactly, whatever the gateway's day grid; the projection uses the
// average daily spend `tally forecast` computes. Three requests, together: the balance (its
// currency), the day buckets of the forecast, and the hours of the periods.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Drawn } from '../output/table.js';
import { UsageError } from '../errors.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type BudgetStanding, type StoredBudget, checkBudget, checkBudgetName, makeBudget, standing } from '../domain/budget.js';
import { Decimal } from '../domain/money.js';
import { isoInZone, parseZone, storableZone } from '../domain/zone.js';
import { emit } from '../output/emit.js';
import { type LoadedForecast, loadForecast, spendMetric } from './forecast.js';
import { loadUsageSeries } from './usage-series.js';

interface BudgetOptions {
  amount?: string;
  period?: string;
  starts?: string;
}

export function configure(command: Command): void {
  command
    .argument('[words...]', 'set NAME, list, rm NAME, or the names of budgets to show (default: all)')
    .option('--amount <yuan>', 'with set: the amount for each period')
    .option('--period <day|week|month>', 'with set: how often it resets')
    .option('--starts <day>', 'with set: the weekday a week begins (mon…sun, default mon) or the day of the month a month begins (1-28, default 1)');
}

export async function run(raw: Record<string, unknown>, ctx: Context, args: string[] = []): Promise<void> {
  const options = raw as BudgetOptions;
  const words = args;
  const [first, ...rest] = words;
  const setOnly = (['amount', 'period', 'starts'] as const).filter((flag) => options[flag] !== undefined);
  if (first !== 'set' && setOnly.length) throw new UsageError(`--${setOnly[0]} goes with \`tally budget set NAME\``);
  if (first === 'set') return setBudget(ctx, rest, options);
  if (first === 'list') return listBudgets(ctx, rest);
  if (first === 'rm') return removeBudget(ctx, rest);
  return showBudgets(ctx, words);
}

async function setBudget(ctx: Context, rest: string[], options: BudgetOptions): Promise<void> {
  if (rest.length !== 1) throw new UsageError('`tally budget set` takes one NAME: tally budget set monthly --amount 500 --period month');
  if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
  const name = checkBudgetName(rest[0]!);
  if (options.amount === undefined || options.period === undefined) throw new UsageError('`tally budget set` needs --amount and --period (day, week or month)');
  // The zone in force when it is set (--tz, else TZ), stored with it: its periods never move.
  const zone = ctx.options.tz ?? storableZone(ctx.zone, Math.floor(ctx.now() / 1000));
  const budget = makeBudget({ amount: options.amount, period: options.period, starts: options.starts, zone });
  const { profile } = await ctx.profileChoice();
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => ({ ...current, budgets: { ...(current.budgets ?? {}), [name]: budget } }));
  await emit(ctx, {
    json: { profile, name, ...budget },
    human: () => `Set budget "${name}" of profile "${profile}": ${describeBudget(budget)}.\n`,
  });
}

async function listBudgets(ctx: Context, rest: string[]): Promise<void> {
  if (rest.length) throw new UsageError('`tally budget list` takes no names (to see where budgets stand: tally budget NAME)');
  const budgets = await storedBudgets(ctx);
  await emit(ctx, {
    json: { budgets: budgets.map(([name, b]) => ({ name, ...b })) },
    human: async () => {
      if (budgets.length === 0) return `${NO_BUDGETS}\n`;
      const [{ renderTable }, { styleFor }, { formatAmount }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/money.js')]);
      const rows = budgets.map(([name, b]) => [name, formatAmount(b.amount, 'account'), b.period, b.starts === undefined ? '—' : String(b.starts), b.zone]);
      return renderTable({ columns: [{ header: 'budget' }, { header: 'amount', align: 'decimal' }, { header: 'period' }, { header: 'starts' }, { header: 'zone' }], rows }, await styleFor(ctx));
    },
  });
}

async function removeBudget(ctx: Context, rest: string[]): Promise<void> {
  if (rest.length !== 1) throw new UsageError('`tally budget rm` takes one NAME');
  if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
  const name = rest[0]!;
  const { profile } = await ctx.profileChoice();
  const budgets = await storedBudgets(ctx);
  if (!budgets.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(budgets) });
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => {
    const { [name]: _removed, ...others } = current.budgets ?? {};
    const { budgets: _all, ...record } = current;
    return Object.keys(others).length ? { ...record, budgets: others } : record;
  });
  await emit(ctx, { json: { profile, name, removed: true }, human: () => `Removed budget "${name}" of profile "${profile}".\n` });
}

const NO_BUDGETS = 'no budget is stored for this profile: `tally budget set monthly --amount 500 --period month` makes one';

function budgetsHint(budgets: [string, StoredBudget][]): string {
  return budgets.length ? `Budgets: ${budgets.map(([n]) => n).join(', ')}.` : NO_BUDGETS;
}

/** The profile's budgets, checked as `budget set` checks them. */
export async function storedBudgets(ctx: Context): Promise<[string, StoredBudget][]> {
  const record = await ctx.profileRecord();
  return Object.entries(record?.budgets ?? {}).map(([name, budget]) => [name, checkBudget(name, budget)]);
}

/** `¥500.00 a month from the 1st, Asia/Shanghai` */
export function describeBudget(b: StoredBudget): string {
  const from = b.period === 'day' ? 'a day' : b.period === 'week' ? `a week from ${String(b.starts)}` : `a month from day ${String(b.starts)}`;
  return `¥${new Decimal(b.amount).toFixed(2)} ${from}, in ${b.zone}`;
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
export async function loadBudgets(ctx: Context, names: string[], forecast?: Promise<LoadedForecast>): Promise<LoadedBudgets> {
  const stored = await storedBudgets(ctx);
  for (const name of names) if (!stored.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(stored) });
  const chosen = names.length ? stored.filter(([n]) => names.includes(n)) : stored;
  const now = Math.floor(ctx.now() / 1000);
  if (chosen.length === 0) return { currency: 'CNY', budgets: [], forecast: await (forecast ?? loadForecast(ctx, { keyQuota: false })) };
  const periods = chosen.map(([, b]) => standing(b, now, new Decimal(0), new Decimal(0)).period);
  // Whole UTC hours (the service's fast path): from the hour that holds the earliest start.
  const since = Math.floor(Math.min(...periods.map((p) => p.start)) / 3600) * 3600;
  const [loaded, hours] = await Promise.all([forecast ?? loadForecast(ctx, { keyQuota: false }), loadUsageSeries(ctx, { bucket: 'hour', since: String(since) })]);
  const metric = spendMetric(hours, undefined);
  const budgets = chosen.map(([name, budget], i) => {
    const period = periods[i]!;
    const first = Math.floor(period.start / 3600) * 3600;
    let spent = new Decimal(0);
    hours.buckets.forEach((bucket, j) => {
      const slot = hours.slots[j]!;
      const value = metric === undefined ? undefined : bucket[metric];
      if (slot >= first && slot < period.end && slot <= now && isDecimalString(value)) spent = spent.plus(value);
    });
    return { name, budget, standing: standing(budget, now, spent, loaded.forecast.averageDailySpend) };
  });
  return { currency: loaded.balance.currency, budgets, forecast: loaded };
}

/** One decimal, rounded half up, as text. */
const oneDecimal = (value: Decimal) => value.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1);
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

/**
 * One line a budget: spent of the amount, a bar with the period's elapsed share marked, and the
 * verdict in its colour. The line is drawn (its colour is tally's own, and nothing in it comes
 * from data unchecked: names are validated, amounts formatted), so every panel shows it as drawn.
 */
export async function budgetLines(loaded: LoadedBudgets, ctx: Context): Promise<[string, Drawn][]> {
  const [{ formatAmount, formatShare }, { styleFor }, { drawn }] = await Promise.all([import('../output/money.js'), import('../output/style.js'), import('../output/table.js')]);
  const style = await styleFor(ctx);
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency: loaded.currency, exact: ctx.options.exact });
  return loaded.budgets.map(({ name, budget, standing: s }) => {
    const colour = s.state === 'over' ? style.paint.red : s.state === 'ahead of pace' ? style.paint.yellow : style.paint.green;
    const unit = budget.period === 'day' ? 'the day' : budget.period === 'week' ? 'the week' : 'the month';
    const text =
      `${amount(s.spent)} of ${amount(s.amount)}  ${paceBar(s, style.unicode)}  ${formatShare(s.spent.toFixed(), s.amount.toFixed())} spent, ` +
      `${oneDecimal(s.elapsedPercent)}% of ${unit} gone · ${amount(s.projected)} projected · resets in ${oneDecimal(s.resetsInDays)} days: ${colour(s.state)}`;
    return [name, drawn(text)];
  });
}

/** 20 cells: the share spent filled, the share of the period gone marked with │ (| on a pipe). */
function paceBar(s: BudgetStanding, unicode: boolean): string {
  const cells = 20;
  const filled = Math.min(cells, Math.round(Math.min(1, s.percent.div(100).toNumber()) * cells));
  const mark = Math.min(cells - 1, Math.floor(s.elapsedPercent.div(100).toNumber() * cells));
  const [full, empty, marker] = unicode ? ['█', '░', '│'] : ['#', '.', '|'];
  return Array.from({ length: cells }, (_, i) => (i === mark ? marker : i < filled ? full : empty)).join('');
}

async function showBudgets(ctx: Context, names: string[]): Promise<void> {
  for (const name of names) checkBudgetName(name);
  const stored = await storedBudgets(ctx);
  if (stored.length === 0 && names.length === 0) {
    await emit(ctx, { json: { budgets: [] }, human: () => `${NO_BUDGETS}\n` });
    return;
  }
  const loaded = await loadBudgets(ctx, names);
  await emit(ctx, {
    json: () => budgetJson(loaded),
    human: async () => {
      const [{ renderPanel }, { styleFor }, { fitLines }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/wrap.js')]);
      const style = await styleFor(ctx);
      const rows = await budgetLines(loaded, ctx);
      const resets = loaded.budgets.map(({ name, budget, standing: s }) => `${name}: ${describeBudget(budget)}, this period ${isoInZone(s.period.start, parseZone(budget.zone)!).slice(0, 16)} → ${isoInZone(s.period.end, parseZone(budget.zone)!).slice(0, 16)}`);
      const note = [...resets, 'projected = spent + the average daily spend of the last 7 complete days × the days left'].join('\n');
      return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
    },
  });
}
