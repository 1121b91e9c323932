// tally budget: amounts for periods that reset, stored per profile, and where the spend stands.
//   tally budget set NAME --amount A --period day|week|month [--starts N] [--tz ZONE] [--scope account|key] [--model GLOB]…
//   tally budget list | tally budget rm NAME | tally budget [NAME...]
// Spend over a period is added up from the usage hour buckets since it began, so a period
// follows the budget's zone exactly, whatever the gateway's day grid; the projection uses the
// average daily spend `tally forecast` computes. Three requests, together: the balance (its
// currency), the day buckets of the forecast, and the hours of the periods.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { checkBudgetName, makeBudget } from '../domain/budget.js';
import { storableZone } from '../domain/zone.js';
import { emit } from '../output/emit.js';
import { NO_BUDGETS, budgetJson, budgetsHint, loadBudgets, storedBudgets } from '../figures/budgets.js';
import { describeBudget, renderBudgetList, renderBudgets } from '../output/budgets.js';

export { budgetFleetRow as fleetRow } from '../output/budgets.js';

interface BudgetOptions {
  amount?: string;
  period?: string;
  starts?: string;
  scope?: string;
  model?: string[];
  group?: string;
}

export const flags = declareFlags({
  amount: { kind: 'value', value: 'amount', help: "with set: the amount for each period, in yuan, or in another currency compared at the day's rate ('100 USD')" },
  period: { kind: 'value', value: 'day|week|month', help: 'with set: how often it resets' },
  starts: { kind: 'value', value: 'day', help: 'with set: the weekday a week begins (mon…sun, default mon) or the day of the month a month begins (1-28, default 1)' },
  scope: { kind: 'value', value: 'account|key', help: "with set: whose spend it counts: the whole account's, every key (default), or this key's own" },
  group: { kind: 'value', value: 'name', help: "with set: count the spend of a group of profiles (tally group), each of its accounts once, instead of this profile's" },
  model: { kind: 'list', value: 'glob', help: "with set: count only models whose names match (e.g. 'claude-opus*'; repeatable)" },
});

export function configure(command: Command): void {
  command
    .argument('[words...]', 'set NAME, list, rm NAME, or the names of budgets to show (default: all)');
}

/** What `tally budget` was asked: set one, list them, remove one, or show where some (or all) stand. */
export type BudgetRequest =
  | { action: 'set'; name: string; options: BudgetOptions & { amount: string; period: string } }
  | { action: 'list' }
  | { action: 'rm'; name: string }
  | { action: 'show'; names: string[] };

export function parse(options: FlagValues<typeof flags>, line: CommandLine): BudgetRequest {
  const [first, ...rest] = line.args;
  const setOnly = (['amount', 'period', 'starts', 'scope', 'model', 'group'] as const).filter((flag) => options[flag] !== undefined);
  if (first !== 'set' && setOnly.length) throw new UsageError(`--${setOnly[0]} goes with \`tally budget set NAME\``);
  switch (first) {
    case 'set': {
      if (rest.length !== 1) throw new UsageError('`tally budget set` takes one NAME: tally budget set monthly --amount 500 --period month');
      const name = checkBudgetName(rest[0]!);
      const { amount, period } = options;
      if (amount === undefined || period === undefined) throw new UsageError('`tally budget set` needs --amount and --period (day, week or month)');
      return { action: 'set', name, options: { ...options, amount, period } };
    }
    case 'list':
      if (rest.length) throw new UsageError('`tally budget list` takes no names (to see where budgets stand: tally budget NAME)');
      return { action: 'list' };
    case 'rm':
      if (rest.length !== 1) throw new UsageError('`tally budget rm` takes one NAME');
      return { action: 'rm', name: rest[0]! };
    default:
      return { action: 'show', names: line.args.map(checkBudgetName) };
  }
}

export async function run(request: BudgetRequest, ctx: Context): Promise<void> {
  switch (request.action) {
    case 'set': return setBudget(ctx, request.name, request.options);
    case 'list': return listBudgets(ctx);
    case 'rm': return removeBudget(ctx, request.name);
    default: return showBudgets(ctx, request.names);
  }
}

async function setBudget(ctx: Context, name: string, options: BudgetOptions & { amount: string; period: string }): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
  // The zone in force when it is set (--tz, else TZ), stored with it: its periods never move.
  const zone = ctx.options.tz ?? storableZone(ctx.zone, Math.floor(ctx.now() / 1000));
  const budget = makeBudget({ amount: options.amount, period: options.period, starts: options.starts, zone, scope: options.scope, models: options.model, ...(options.group === undefined ? {} : { group: options.group }) });
  const { profile } = await ctx.profileChoice();
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => ({ ...current, budgets: { ...(current.budgets ?? {}), [name]: budget } }));
  await emit(ctx, {
    json: { profile, name, ...budget },
    human: () =>
      `Set budget "${name}" of profile "${profile}": ${describeBudget(budget)}.\n${options.scope === undefined && !budget.group ? "It counts the whole account's spend, every key's; --scope key counts this key's own.\n" : ''}` +
      (budget.group ? `It counts the spend of the profiles of group "${budget.group}" (tally group list), each account once, at the period's own pace.\n` : '') +
      (budget.currency ? `The spend is in yuan: it is compared at the day's ${budget.currency} rate from the rate source (tally config set rate-source URL).\n` : ''),
  });
  await sayIfNotMeasured(ctx, name);
}

/** How long `budget set` asks the gateway whether the budget can be measured before it leaves it unsaid. */
const MEASURE_WAIT_MS = 5000;

/**
 * A budget the gateway cannot measure (another scope's spend per model, periods between its days)
 * is stored as asked, and said so at once rather than at the first check. Asked of the gateway
 * where one is set up, within a few seconds; a gateway that does not answer leaves it unsaid.
 */
async function sayIfNotMeasured(ctx: Context, name: string): Promise<void> {
  try {
    const settings = await ctx.settings();
    if (!settings.baseUrl || !settings.credential) return;
    const { loadBudgets } = await import('../figures/budgets.js');
    const measuring = loadBudgets(ctx, [name]);
    measuring.catch(() => undefined);
    const waited = new AbortController();
    const loaded = await Promise.race([measuring, ctx.sleep(MEASURE_WAIT_MS, waited.signal).then(() => undefined, () => undefined)]);
    waited.abort();
    const why = loaded?.budgets[0]?.notMeasured;
    if (why) ctx.warn(`budget "${name}" is stored, but the gateway cannot measure it: ${why}`);
  } catch (error) {
    ctx.debug(`budget set: whether "${name}" can be measured was not asked (${(error as Error).message})`);
  }
}

async function listBudgets(ctx: Context): Promise<void> {
  const budgets = await storedBudgets(ctx);
  await emit(ctx, {
    json: { budgets: budgets.map(([name, b]) => ({ name, ...b })) },
    human: () => (budgets.length === 0 ? `${NO_BUDGETS}\n` : renderBudgetList(budgets, ctx)),
  });
}

async function removeBudget(ctx: Context, name: string): Promise<void> {
  if (ctx.options.demo) throw new UsageError('--demo never touches stored settings');
  const { profile } = await ctx.profileChoice();
  const budgets = await storedBudgets(ctx);
  if (!budgets.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(budgets, name) });
  const store = await ctx.store();
  await store.updateProfile(profile, (current) => {
    const { [name]: _removed, ...others } = current.budgets ?? {};
    const { budgets: _all, ...record } = current;
    return Object.keys(others).length ? { ...record, budgets: others } : record;
  });
  await emit(ctx, { json: { profile, name, removed: true }, human: () => `Removed budget "${name}" of profile "${profile}".\n` });
}

async function showBudgets(ctx: Context, names: string[]): Promise<void> {
  const stored = await storedBudgets(ctx);
  if (stored.length === 0 && names.length === 0) {
    await emit(ctx, { json: { budgets: [] }, human: () => `${NO_BUDGETS}\n` });
    return;
  }
  const loaded = await loadBudgets(ctx, names);
  await emit(ctx, {
    json: () => budgetJson(loaded),
    human: () => renderBudgets(loaded, ctx),
  });
}
