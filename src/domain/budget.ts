// Budgets: an amount for a period that resets (a day, a week from a weekday, a month from a day
// of the month) in a zone, and where the spend stands against it. Pure rules; commands/budget.ts
// fetches the figures. All money in exact decimals; shown figures to the ledger's 8 places.
import { UsageError } from '../errors.js';
import { didYouMean, nearest } from './suggest.js';
import { amountText } from './decimal-text.js';
import { Decimal, derivedText } from './money.js';
import { type Period, type PeriodKind, WEEKDAY_NAMES, elapsedOf, periodAt } from './period.js';
import { notAZone, parseZone } from './zone.js';
import { currencyCode } from './currency-code.js';
import { GROUP_NAME, UNATTRIBUTED } from './groups.js';

/** Whose spend a budget counts: the whole account's (every key), or the calling key's own. */
export type BudgetScope = 'account' | 'key';
export const BUDGET_SCOPES: readonly BudgetScope[] = ['account', 'key'];

/** A budget as stored in a profile (config.json `budgets`). */
export interface StoredBudget {
  amount: string;
  period: PeriodKind;
  /** Weeks: the weekday (`mon` … `sun`); months: the day of the month (1-28); days: absent. */
  starts?: string | number;
  /** The zone its periods begin in: an IANA name, UTC or ±HH:MM, as it was set. */
  zone: string;
  /** Whose spend it counts; absent (a budget set before scopes) is the whole account's. */
  scope?: BudgetScope;
  /** Only models whose names match one of these globs (`claude-opus*`); absent: every model. */
  models?: string[];
  /** The currency its amount is set in (ISO 4217, never CNY): compared at the day's rate; absent: yuan. */
  currency?: string;
  /** A group of profiles (`tally group`) whose spend it counts, each account once, instead of this profile's. */
  group?: string;
}

/** Whose spend a budget counts. */
export function budgetScope(budget: StoredBudget): BudgetScope {
  return budget.scope ?? 'account';
}

/** What a budget measures (its period, zone, whose spend and which models), apart from its amount: a figure kept for one measure never stands for another. */
export function budgetMeasure(budget: StoredBudget): string {
  // A budget set in another currency: its yuan amount is the day's rate's, so a figure kept for it stands only for that amount in that currency.
  return JSON.stringify([budget.period, budget.starts ?? null, budget.zone, budgetScope(budget), budget.models ?? null, ...(budget.currency ? [budget.currency, budget.amount] : []), ...(budget.group ? [{ group: budget.group }] : [])]);
}

/** Whether a budget is measured from the usage series (the whole account, every model) or from spend per model. */
export function countsPerModel(budget: StoredBudget): boolean {
  return budget.group === undefined && (budgetScope(budget) === 'key' || (budget.models?.length ?? 0) > 0);
}

const MAX_MODEL_GLOBS = 20;

/** The model globs of a budget, checked: a few short patterns of printable characters. */
function checkModelGlobs(models: readonly unknown[], fail: (problem: string) => never): string[] {
  if (models.length > MAX_MODEL_GLOBS) fail(`at most ${MAX_MODEL_GLOBS} --model patterns`);
  return models.map((m) => {
    if (typeof m !== 'string' || m.trim() === '' || m.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(m)) fail(`--model "${String(m).slice(0, 40)}" is not a model name or pattern (e.g. claude-opus*)`);
    return (m as string).trim();
  });
}

/** What a budget, a mark or an alert destination may be called. */
export const BUDGET_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const NAME_RULE = '1 to 32 lower-case letters, digits, "-" or "_", starting with a letter or digit';
/** Words of `tally budget` itself: never names of budgets. */
const RESERVED = new Set(['set', 'list', 'rm']);

/** `name` when it is one tally stores (`what`: budget, mark, destination); exit 2 otherwise. */
export function checkName(what: string, name: string): string {
  if (!BUDGET_NAME.test(name)) throw new UsageError(`${what} name "${name}" must be ${NAME_RULE}`);
  return name;
}

export function checkBudgetName(name: string): string {
  checkName('budget', name);
  if (RESERVED.has(name)) throw new UsageError(`"${name}" is a word of \`tally budget\` itself; choose another name`);
  return name;
}

/**
 * `--amount` as written: a positive amount in yuan, or in another currency named beside it
 * (`100 USD`, `100usd`, `USD 100`; CNY is the yuan). The amount as text, and its currency where
 * it is not the yuan.
 */
export function parseAmountIn(text: string): { amount: string; currency?: string } {
  const written = text.trim();
  const before = /^[A-Za-z]{3}(?![A-Za-z])/.exec(written)?.[0];
  const after = /(?<![A-Za-z])[A-Za-z]{3}$/.exec(written)?.[0];
  // A code on one side only (`USD` alone is a code with no amount); on both, or none, it is read as yuan (and refused if it is not).
  const code = written.length === 3 ? before : before && after ? undefined : (before ?? after);
  if (code === undefined) return { amount: parseBudgetAmount(text) };
  const currency = currencyCode(code);
  if (!currency) throw new UsageError(`--amount "${text}": ${code} is not an ISO 4217 currency code (USD, EUR, JPY)`);
  const amount = parseBudgetAmount(before ? written.slice(3) : written.slice(0, -3), currency);
  return currency === 'CNY' ? { amount } : { amount, currency };
}

/** How a budget set in another currency is compared, in words: `set as 100 USD, at 0.13781 USD per yuan (the rate of 2026-11-27)`. */
export function setInWords(setIn: { currency: string; amount: string; rate?: { rate: string; date: string } }): string {
  const amount = `${setIn.amount} ${setIn.currency}`;
  return setIn.rate ? `set as ${amount}, at ${setIn.rate.rate} ${setIn.currency} per yuan (the rate of ${setIn.rate.date})` : `set as ${amount}`;
}

/** A budget's amount in yuan at `rate` (its currency per yuan): the ledger's 8 places, rounded half up. */
export function amountInYuan(budget: StoredBudget, rate: string): string {
  return derivedText(new Decimal(budget.amount).div(rate));
}

/** A positive amount in yuan, as text (at most 8 decimal places: the ledger's). */
export function parseBudgetAmount(text: string, currency = 'CNY'): string {
  const cleaned = amountText(text) ?? '';
  if (!/^\d{1,20}(\.\d{1,8})?$/.test(cleaned) || new Decimal(cleaned).lte(0)) throw new UsageError(`--amount "${text}" is not a positive amount in ${currency === 'CNY' ? 'yuan' : currency} (e.g. 500, 1,000 or 99.50; at most 8 decimal places)`);
  return new Decimal(cleaned).toFixed();
}

// What a period is called, and what people call it (`monthly` is the month).
const PERIOD_OF: Record<string, string> = { daily: 'day', weekly: 'week', monthly: 'month' };
const PERIOD_WORDS = ['day', 'week', 'month', ...Object.keys(PERIOD_OF)];
const WEEKDAYS_IN_FULL = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A weekday as stored (`mon`), from any form a person writes it (`mon`, `Monday`, `tues`); else an error with the one meant. */
function weekday(text: string): string {
  const word = text.trim().toLowerCase();
  const day = word.length >= 2 ? WEEKDAYS_IN_FULL.findIndex((full) => full.startsWith(word)) : -1;
  const unique = day >= 0 && WEEKDAYS_IN_FULL.filter((full) => full.startsWith(word)).length === 1;
  if (unique) return WEEKDAY_NAMES[day]!;
  const hint = didYouMean(word, WEEKDAYS_IN_FULL);
  throw new UsageError(`--starts "${text}" for a weekly budget is a weekday (${WEEKDAY_NAMES.join(', ')}, or in full)`, hint ? { hint } : {});
}

/** The budget a `budget set` describes, checked as a whole (a bad value stores nothing). */
export function makeBudget(input: { amount: string; period: string; starts?: string; zone: string; scope?: string; models?: string[]; group?: string }): StoredBudget {
  const { amount, currency } = parseAmountIn(input.amount);
  if (input.group !== undefined && (input.scope === 'key' || input.models?.length)) throw new UsageError("--group counts the whole spend of each of the group's accounts: --scope key and --model go with a budget of this profile");
  if (input.group !== undefined) checkGroupName(input.group, (problem) => {
    throw new UsageError(`--group ${problem}`);
  });
  const scoped = whose(input.scope, input.models);
  if (!['day', 'week', 'month'].includes(input.period)) {
    const said = input.period.trim().toLowerCase();
    const meant = PERIOD_OF[said] ?? nearest(said, PERIOD_WORDS);
    throw new UsageError(`--period "${input.period}" is not one of day, week, month`, meant ? { hint: `Did you mean "${PERIOD_OF[meant] ?? meant}"?` } : {});
  }
  const period = input.period as PeriodKind;
  // Stored as written, less the white space around it (a zone name never has any).
  const zone = input.zone.trim();
  if (!parseZone(zone)) throw notAZone('--tz', input.zone);
  const budget: StoredBudget = { amount, period, zone, ...scoped, ...(currency ? { currency } : {}), ...(input.group === undefined ? {} : { group: input.group }) };
  if (period === 'day') {
    if (input.starts !== undefined) throw new UsageError('--starts goes with --period week (a weekday) or month (a day of the month); a day begins at 00:00');
    return budget;
  }
  // A day of the month in plain digits only: 0x1c, 1e1 or " 7" are not days.
  if (period === 'month' && input.starts !== undefined && !/^\d{1,2}$/.test(input.starts)) throw new UsageError(`--starts "${input.starts}" is not a day of the month from 1 to 28`);
  budget.starts = period === 'week' ? weekday(input.starts ?? 'mon') : Number(input.starts ?? 1);
  return checkBudget('', budget);
}

/** --scope and --model of `budget set`, checked. */
function whose(scope: string | undefined, models: string[] | undefined): Pick<StoredBudget, 'scope' | 'models'> {
  const fail = (problem: string): never => {
    throw new UsageError(problem);
  };
  if (scope !== undefined && !(BUDGET_SCOPES as readonly string[]).includes(scope)) {
    const hint = didYouMean(scope, BUDGET_SCOPES);
    throw new UsageError(`--scope "${scope}" is not one of account (the whole account's spend, every key) or key (this key's own)`, hint ? { hint } : {});
  }
  return { scope: (scope as BudgetScope | undefined) ?? 'account', ...(models?.length ? { models: checkModelGlobs(models, fail) } : {}) };
}

/** A stored budget read back, checked as `budget set` checks it; throws a UsageError naming what is wrong. */
export function checkBudget(name: string, value: unknown): StoredBudget {
  const fail = (problem: string): never => {
    throw new UsageError(`${name ? `budget "${name}": ` : ''}${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('is not an object');
  const b = value as Record<string, unknown>;
  if (typeof b.amount !== 'string') return fail('its amount is not a decimal string');
  parseBudgetAmount(b.amount);
  if (b.period !== 'day' && b.period !== 'week' && b.period !== 'month') return fail('its period is not day, week or month');
  if (typeof b.zone !== 'string' || b.zone !== b.zone.trim() || !parseZone(b.zone)) return fail('its zone is not a zone');
  if (b.period === 'week' && !(typeof b.starts === 'string' && (WEEKDAY_NAMES as readonly string[]).includes(b.starts))) return fail(`--starts for a weekly budget is a weekday (${WEEKDAY_NAMES.join(', ')})`);
  if (b.period === 'month' && !(typeof b.starts === 'number' && Number.isInteger(b.starts) && b.starts >= 1 && b.starts <= 28)) return fail('--starts for a monthly budget is a day of the month from 1 to 28');
  if (b.period === 'day' && b.starts !== undefined) return fail('a daily budget has no --starts');
  if (b.scope !== undefined && !(BUDGET_SCOPES as readonly unknown[]).includes(b.scope)) return fail('its scope is not account or key');
  if (b.models !== undefined && (!Array.isArray(b.models) || b.models.length === 0)) return fail('its models are not a list of model names or patterns');
  const models = b.models === undefined ? undefined : checkModelGlobs(b.models as unknown[], fail);
  if (b.group !== undefined) checkGroupName(b.group, (problem) => fail(`its group ${problem}`));
  if (b.group !== undefined && (b.scope === 'key' || b.models !== undefined)) return fail("counts a group's spend, which is each account's whole: it has no key scope or models");
  if (b.currency !== undefined && (typeof b.currency !== 'string' || currencyCode(b.currency) !== b.currency || b.currency === 'CNY')) return fail('its currency is not an ISO 4217 code other than CNY');
  return {
    amount: b.amount,
    period: b.period,
    zone: b.zone,
    ...(b.starts === undefined ? {} : { starts: b.starts as string | number }),
    ...(b.scope === undefined ? {} : { scope: b.scope as BudgetScope }),
    ...(models ? { models } : {}),
    ...(b.currency === undefined ? {} : { currency: b.currency as string }),
    ...(b.group === undefined ? {} : { group: b.group as string }),
  };
}

/** A group's name as `tally group set` stores it. */
function checkGroupName(group: unknown, fail: (problem: string) => never): void {
  if (typeof group !== 'string' || !GROUP_NAME.test(group) || group === UNATTRIBUTED) fail(`"${String(group).slice(0, 64)}" is not a group's name (letters, digits, . _ -; see tally group list)`);
}

/** The period of a budget that holds `t` (Unix seconds). */
export function budgetPeriod(budget: StoredBudget, t: number): Period {
  const zone = parseZone(budget.zone)!;
  const starts = budget.period === 'week' ? WEEKDAY_NAMES.indexOf(budget.starts as (typeof WEEKDAY_NAMES)[number]) : budget.period === 'month' ? Number(budget.starts) : 0;
  return periodAt(t, { period: budget.period, starts, zone });
}

export type BudgetState = 'on track' | 'ahead of pace' | 'over';

export interface BudgetStanding {
  period: Period;
  spent: Decimal;
  amount: Decimal;
  /** spent + average daily spend × the days left (an exact fraction). */
  projected: Decimal;
  /** Shares of the amount spent and of the period gone, and days to the reset (exact). */
  percent: Decimal;
  elapsedPercent: Decimal;
  resetsInDays: Decimal;
  state: BudgetState;
}

/**
 * Where a budget stands at `now`: `spent` over its period so far, `averageDailySpend` as
 * `tally forecast` computes it. Over when spent reaches the amount; ahead of pace when the
 * projection passes it; on track otherwise.
 */
export function standing(budget: StoredBudget, now: number, spent: Decimal, averageDailySpend: Decimal): BudgetStanding {
  const period = budgetPeriod(budget, now);
  const { elapsed, left, length } = elapsedOf(period, now);
  const amount = new Decimal(budget.amount);
  const daysLeft = new Decimal(left).div(86_400);
  const projected = spent.plus(averageDailySpend.mul(daysLeft));
  const state: BudgetState = spent.gte(amount) ? 'over' : projected.gt(amount) ? 'ahead of pace' : 'on track';
  return {
    period,
    spent,
    amount,
    projected,
    percent: spent.div(amount).mul(100),
    elapsedPercent: new Decimal(elapsed).div(length).mul(100),
    resetsInDays: daysLeft,
    state,
  };
}
