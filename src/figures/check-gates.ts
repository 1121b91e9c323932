// The gates of `tally check`, each a rule from a figure and a threshold to a check result (a
// line, a JUnit case, an alert): the ones measured from one figure here, those that load figures
// of their own (growth, anomalies, a repricing's impact) as functions that ask for them.
import type { Context } from '../context.js';
import type { Balance } from '../api/balance.js';
import { Decimal, type Threshold, decimalText, derivedText } from '../domain/money.js';
import type { UsageWindow } from '../domain/window.js';
import type { Zone } from '../domain/zone.js';
import type { LoadedForecast } from './forecast.js';
import type { Anomalies, Finding } from './anomalies.js';
import { fixedZone } from '../domain/zone.js';
import { plural } from '../domain/words.js';
import { loadUsageSeries } from './usage-series.js';
import { spendMetric } from './forecast.js';
import { seriesSpend } from './usage-series.js';
import { type KeyQuotaFigure, quotaReadError } from './key-quota.js';
import { dailyAllowance } from './key-allowance.js';
import { NotMeasured } from '../errors.js';
import type { BudgetFigures } from './budgets.js';
import { type StoredBudget, budgetScope, setInWords } from '../domain/budget.js';
import { type WindowJson, windowJson } from '../domain/window.js';
import { parseZone } from '../domain/zone.js';
import { nearest } from '../domain/suggest.js';

export type Level = 'pass' | 'warn' | 'fail';
/** A currency code (the one the service states; CNY when it states none), or what else is compared. */
export type Unit = string;

export interface CheckResult {
  name: string;
  ok: boolean;
  level: Level;
  /** A decimal string (or the model's state); null when it could not be measured. */
  actual: string | null;
  limit: string;
  unit: Unit;
  /** Why a check could not be measured, or what it measured over. */
  detail?: string;
  /** Run-spend checks: whose spend was measured (this key's, or the whole account's). */
  basis?: 'key' | 'account';
  /** Budgets and findings: whose spend it measured (null: the gateway does not say), and over which window. */
  scope?: 'account' | 'key' | null;
  window?: WindowJson;
}

type Gate = Omit<CheckResult, 'ok'>;

/**
 * The words a gate's detail is written in: amounts, windows and findings as every view shows
 * them. The view supplies them (output/check-report.ts, gateWords): a figure returns data and
 * the sentence it belongs in, never its own digits.
 */
export interface GateWords {
  amount(value: Decimal, currency?: string): string;
  /** An amount in the unit a record states, or a bare number followed by "units" where it states none. */
  stated(value: Decimal, currency: string | undefined): string;
  /** `window … (7 days)`: the window, and its length when given. */
  window(window: UsageWindow, zone: Zone, length?: string): string;
  finding(f: Finding, a: Anomalies): string;
  /** Whose spend a budget counts (`this key's spend of claude-opus*`). */
  budgetWhose(budget: StoredBudget): string;
  findingWhen(f: Finding, zone: Zone, bucket: 'day' | 'hour'): string;
}

export function dailyCheck(name: string, level: Level, balance: Balance, threshold: Threshold, words: GateWords): Omit<CheckResult, 'ok'> {
  const daily = dailyAllowance(balance.apiKey);
  const limit = decimalText(threshold.value);
  const unit = threshold.kind === 'percent' ? 'percent' : balance.currency;
  // A condition that cannot apply to this key is a warning that says why, never a budget failure.
  if (daily?.used === undefined) {
    return { name, level: 'warn', actual: null, limit, unit, detail: daily ? 'does not apply: the key reports no spend for today' : 'does not apply: signed in with a device token, no key-level limit' };
  }
  const used = daily.used;
  const money = (value: Decimal) => words.amount(value, balance.currency);
  if (threshold.kind === 'amount') return { name, level: used.lte(threshold.value) ? 'pass' : level, actual: decimalText(used), limit, unit };
  if (daily.share === undefined) {
    return { name, level: 'warn', actual: null, limit, unit, detail: `does not apply: the key has no daily limit to take a share of (spent ${money(used)} today)` };
  }
  // The gate compares the exact share; JSON carries it to the ledger's 8 places, the line as precisely as the limit.
  const share = daily.share.mul(100);
  return {
    name,
    level: share.lte(threshold.value) ? 'pass' : level,
    actual: derivedText(share),
    limit,
    unit,
    detail: `${money(used)} of the ${money(daily.limit!)} daily limit spent today`,
  };
}

/** A gate's reading of the key's quota: one that could not be read is the failure (exit 1, 3 or 4; --fail-open: not measured), never a value. */
export function readQuota(figure: KeyQuotaFigure): KeyQuotaFigure {
  if (figure.state === 'unknown') throw quotaReadError(figure);
  return figure;
}

/** The key's own quota against a floor; a key without one (or whose record states no unit) is a warning that says why. */
export function keyQuotaCheck(c: { name: string; limit: string; level: Level; value: Decimal }, figure: KeyQuotaFigure, words: GateWords): Omit<CheckResult, 'ok'> {
  const base = { name: c.name, limit: c.limit, unit: 'CNY' };
  if (figure.state !== 'quota') return { ...base, level: 'warn', actual: null, detail: `does not apply: ${figure.reason}` };
  const { quota } = figure;
  if (quota.currency === undefined) {
    return { ...base, level: 'warn', actual: null, detail: `does not apply: the token record states no unit (${words.stated(quota.remaining, undefined)} left), so it cannot be set against yuan` };
  }
  const of = quota.granted ? ` of ${words.amount(quota.granted, quota.currency)} granted` : '';
  return { ...base, unit: quota.currency, level: quota.remaining.gte(c.value) ? 'pass' : c.level, actual: decimalText(quota.remaining), detail: `left of the key's own quota${of}` };
}

export function runwayCheck(name: string, level: Level, loaded: LoadedForecast, days: number): Omit<CheckResult, 'ok'> {
  const runway = loaded.forecast.runwayDays;
  const basis = `at the pace of the last ${loaded.forecast.basis.days} complete days`;
  if (runway === null) return { name, level: 'pass', actual: null, limit: String(days), unit: 'days', detail: `no spend ${basis}: the balance is not being used up` };
  const what = loaded.forecast.runwayBasis === 'key_quota' ? "; the key's own quota runs out first" : '';
  return { name, level: runway.gte(days) ? 'pass' : level, actual: runway.toFixed(), limit: String(days), unit: 'days', detail: `${basis}${what}` };
}

/** A growth gate: `max-growth` (fail) or `warn-growth`, at a share of the previous period's spend. */
export interface GrowthGate {
  name: string;
  level: Level;
  percent: Decimal;
}

/** The window's spend against the period it is compared with. */
export async function growthGates(ctx: Context, request: import('./comparison.js').ComparisonRequest, gates: GrowthGate[], words: GateWords): Promise<Gate[]> {
  const [{ loadComparison }, { fixedZone }] = await Promise.all([import('./comparison.js'), import('../domain/zone.js')]);
  const c = await loadComparison(ctx, request);
  const zone = fixedZone(c.grid.offset);
  // A window whose last day is still running is a part of a period set against a whole one: said, as usage --compare marks it (part).
  const running = c.currentComplete ? '' : ' (part: its last day is still running)';
  const detail = `${words.amount(c.totals.current)} over ${words.window(c.current, zone)}${running} against ${words.amount(c.totals.previous)} over ${words.window(c.previous, zone)}`;
  return gates.map((g) => {
    const base = { name: g.name, limit: decimalText(g.percent), unit: 'percent' };
    const change = c.totals.changePercent;
    if (change === null) {
      if (c.totals.current.isZero()) return { ...base, level: 'pass', actual: '0', detail: `no spend in either period; ${detail}` };
      return { ...base, level: g.level, actual: null, detail: `the previous period spent nothing, so any spend is unbounded growth; ${detail}` };
    }
    // The exact change (8 places at most): the check line shows it at the limit's precision, or finer where the two would read the same.
    return { ...base, level: change.lte(g.percent) ? 'pass' : g.level, actual: derivedText(change), detail };
  });
}

/** One check per finding in the window (each alerts once with --notify), or one that passes. */
export async function anomalyGates(ctx: Context, request: import('./anomalies.js').AnomalyRequest, level: Level, words: GateWords): Promise<Gate[]> {
  const { loadAnomalies } = await import('./anomalies.js');
  const a = await loadAnomalies(ctx, request);
  const name = level === 'fail' ? 'anomalies' : 'warn-anomalies';
  if (a.findings.length === 0) return [{ name, level: 'pass', actual: '0', limit: '', unit: 'finding', detail: `nothing unusual over ${words.window(a.window, a.labelZone)}` }];
  const window = windowJson(a.window, a.labelZone);
  return a.findings.map((f) => {
    // A spike and growth are read from the usage series, the model findings from spend per model: each says whose.
    const scope = (f.kind === 'spike' || f.kind === 'growth' ? a.seriesScope : a.modelsScope) ?? null;
    const whose = scope === 'key' ? "this key's spend" : scope === 'account' ? "the whole account's spend (every key)" : 'spend as the gateway states it';
    return {
      name: `${name}:${f.kind}:${words.findingWhen(f, a.labelZone, a.rule.bucket).replace(' ', 'T')}${f.model === undefined ? '' : `:${f.model}`}`,
      level,
      actual: f.amount.toFixed(),
      limit: '',
      unit: 'finding',
      detail: `${words.finding(f, a)} (${whose}, found in the ${words.window(a.window, a.labelZone)})`,
      scope,
      window,
    };
  });
}

/**
 * The latest repricing (or the change from the catalog `against` names), priced on the key's
 * usage, against a most the bill may rise by. Nothing to compare with, or prices tally cannot
 * read, is "not measured" (exit 1, or --fail-open's WARN), never a pass at ¥0.
 */
export async function priceImpactGates(ctx: Context, since: string | undefined, gates: { name: string; level: Level; amount: Decimal }[], words: GateWords, against?: string): Promise<Gate[]> {
  const [{ loadCatalog, baselineFrom }, { diffCatalogs }, { priceImpact }] = await Promise.all([import('./price-listing.js'), import('../domain/catalog.js'), import('./repricing.js')]);
  const loaded = await loadCatalog(ctx, {}, { whole: true, forceLive: true });
  const base = (g: (typeof gates)[number]) => ({ name: g.name, limit: decimalText(g.amount), unit: 'CNY' });
  const previous = against === undefined ? loaded.previous : await baselineFrom(ctx, against, [loaded.previous]);
  if (!previous) throw new NotMeasured('no earlier catalog version is cached to compare with, so the impact of a repricing cannot be measured; pin one with --against VERSION|FILE (tally pricing --json > catalog.json keeps one)');
  const changes = await diffCatalogs(previous.records, loaded.records ?? [], () => ctx.checkpoint());
  const impact = await priceImpact(ctx, changes, previous.records, loaded.records ?? [], since);
  const unknown = impact.rows.filter((r) => r.basis === 'unknown');
  if (unknown.length) throw new NotMeasured(`the impact of the repricing cannot be computed for ${unknown.map((r) => `${r.model} (${r.why ?? 'unknown'})`).join(', ')}`);
  const detail = `${impact.rows.length} repriced model${impact.rows.length === 1 ? '' : 's'} used by this key: ${words.amount(impact.total.before)} at the old prices, ${words.amount(impact.total.after)} at the new`;
  return gates.map((g) => ({ ...base(g), level: impact.total.change.lte(g.amount) ? 'pass' : g.level, actual: derivedText(impact.total.change), detail }));
}

/** The spend over a window, for --max-spend: the usage series' money field added up, and what it measured over. */
export async function loadSpend(ctx: Context, options: { since?: string; until?: string; month?: string; last?: string; utcOffset?: string; metric?: string }, words: GateWords): Promise<{ amount: Decimal; detail: string }> {
  const series = await loadUsageSeries(ctx, { bucket: 'day', since: options.since, until: options.until, month: options.month, last: options.last, utcOffset: options.utcOffset });
  const metric = spendMetric(series, options.metric);
  const window = words.window(series.window, fixedZone(series.dayGrid.offset), plural(Math.round((series.window.end - series.window.start) / 86_400), 'day'));
  // spendMetric refuses usage with no decimal amount: undefined here is no usage at all.
  if (metric === undefined) return { amount: new Decimal(0), detail: `no usage at all; ${window}` };
  const amount = seriesSpend(series, metric);
  if (series.totals[metric] === undefined || series.totals[metric] === null) return { amount, detail: `no usage in the ${window}` };
  return { amount, detail: `spend = usage totals."${metric}" over the ${window}` };
}

/**
 * A budget gate: the spend of its period so far against a share of its amount (`budget:NAME`), or
 * the projection against the amount (`budget-projected:NAME`), said with whose spend it counts. A
 * budget whose spend cannot be told is not measured (exit 1; --fail-open: a WARN), never a pass.
 */
/** A budget gate's check name: `budget:monthly`, a threshold's `budget:monthly@80%` (each its own alert, once a period), `budget-projected:monthly`. */
export function budgetGateName(gate: { name: string; percent: Decimal; projected?: boolean; threshold?: boolean }): string {
  return gate.projected ? `budget-projected:${gate.name}` : `budget:${gate.name}${gate.threshold ? `@${gate.percent.toFixed()}%` : ''}`;
}

/**
 * The budget period a gate's alert belongs to (its start), by the gate's name: `budget:NAME`,
 * a threshold's `budget:NAME@80%` and `budget-projected:NAME` alike, so each is sent once a
 * period and closed when a new one begins; undefined for a gate of no budget.
 */
export function gatePeriod(gate: string, budgets: readonly { name: string; period: { start: number } }[]): number | undefined {
  const named = /^budget(?:-projected)?:([^@]+)(?:@\d+(?:\.\d+)?%)?$/.exec(gate)?.[1];
  return named === undefined ? undefined : budgets.find((b) => b.name === named)?.period.start;
}

export function budgetGate(gate: { name: string; level: Level; percent: Decimal; projected?: boolean; threshold?: boolean }, figures: BudgetFigures, currency: string, words: GateWords): Gate {
  const name = budgetGateName(gate);
  const s = figures.standing;
  const whose = words.budgetWhose(figures.budget);
  if (!s) throw new NotMeasured(`budget "${gate.name}" (${whose}) is not measured: ${figures.notMeasured}`);
  const ledger = derivedText;
  const about = { scope: budgetScope(figures.budget), window: windowJson(figures.period, parseZone(figures.budget.zone)!) };
  if (gate.projected) {
    return { name, level: s.projected.gt(s.amount) ? gate.level : 'pass', actual: ledger(s.projected), limit: ledger(s.amount), unit: currency, detail: `${whose}, projected by the period's end at its recent pace; ${s.state}${figures.setIn ? ` (the budget ${setInWords(figures.setIn)})` : ''}`, ...about };
  }
  const limit = s.amount.mul(gate.percent).div(100);
  const setIn = figures.setIn ? ` (${setInWords(figures.setIn)})` : '';
  return { name, level: s.spent.gte(limit) ? gate.level : 'pass', actual: ledger(s.spent), limit: ledger(limit), unit: currency, detail: `${gate.percent.toFixed()}% of the ${words.amount(s.amount, currency)} budget${setIn} of ${whose}, spent this period; the whole budget is ${s.state}`, ...about };
}

/** The balance's gates: at least the minimum (fail) or the warning level, and the key's day against its limit. */
export function balanceGates(balance: Balance, gates: { minBalance?: Decimal; warnBalance?: Decimal; maxDaily?: Threshold; warnDaily?: Threshold }, words: GateWords): Gate[] {
  const amount = (value: Decimal) => decimalText(value);
  const unit = balance.currency;
  const { minBalance, warnBalance, maxDaily, warnDaily } = gates;
  return [
    ...(minBalance ? [{ name: 'min-balance', level: balance.balance.gte(minBalance) ? 'pass' : 'fail', actual: amount(balance.balance), limit: amount(minBalance), unit } as Gate] : []),
    ...(warnBalance ? [{ name: 'warn-balance', level: balance.balance.gte(warnBalance) ? 'pass' : 'warn', actual: amount(balance.balance), limit: amount(warnBalance), unit } as Gate] : []),
    ...(maxDaily ? [dailyCheck('max-daily-used', 'fail', balance, maxDaily, words)] : []),
    ...(warnDaily ? [dailyCheck('warn-daily-used', 'warn', balance, warnDaily, words)] : []),
  ];
}

/** The runway's gates: at least so many days (fail), or the warning level. */
export function runwayGates(loaded: LoadedForecast, gates: { minRunway?: number; warnRunway?: number }): Gate[] {
  return [...(gates.minRunway !== undefined ? [runwayCheck('min-runway', 'fail', loaded, gates.minRunway)] : []), ...(gates.warnRunway !== undefined ? [runwayCheck('warn-runway', 'warn', loaded, gates.warnRunway)] : [])];
}

/** What a CI run spent since its mark, against the most (fail) and the warning level, with whose spend it measured. */
export function runSpendGates(run: { spend: Decimal; basis: 'key' | 'account'; why: string }, markAt: string, currency: string, gates: { maxRun?: Decimal; warnRun?: Decimal }): Gate[] {
  const detail = `since the mark of ${markAt}: ${run.why}`;
  return ([['max-run-spend', gates.maxRun, 'fail'], ['warn-run-spend', gates.warnRun, 'warn']] as const).flatMap(([name, limit, level]) =>
    limit === undefined ? [] : [{ name, level: run.spend.lte(limit) ? 'pass' : level, actual: run.spend.toFixed(), limit: decimalText(limit), unit: currency, basis: run.basis, detail } as Gate],
  );
}

/** Each model the key must be able to call: in its list, or not (with the one of the list most likely meant). */
export function modelGates(available: { id?: unknown }[], models: string[]): Gate[] {
  const ids = new Set(available.map((m) => String(m.id)));
  return models.map((model) => {
    const meant = ids.has(model) ? undefined : nearest(model, ids);
    return { name: `require-model:${model}`, level: ids.has(model) ? 'pass' : 'fail', actual: ids.has(model) ? 'available' : 'not available to this key', limit: model, unit: 'model', ...(meant ? { detail: `did you mean ${meant}?` } : {}) };
  });
}
