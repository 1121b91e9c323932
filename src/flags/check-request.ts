// The flags of `tally check` as a typed request: every amount, share, count and gate parsed, and
// every flag that needs another checked, before anything is asked of the gateway. A pure
// function of the flags (test/flags/check-request.test.ts).
import { UsageError } from '../errors.js';
import { Decimal, type Threshold } from '../domain/money.js';
import { BUDGET_NAME } from '../domain/budget.js';
import type { AnomalyRule } from '../figures/anomalies.js';
import type { GrowthGate, Level } from '../figures/check-gates.js';
import { parseAmount, parsePercent, parseThreshold } from './amount-flags.js';
import { ANOMALY_RULE_FLAGS, anomalyRuleOf } from './anomaly-flags.js';
import { type FlagValues, declareFlags } from './declare.js';
import { windowFlags } from './options.js';
import { wholeNumber } from './flag-values.js';

/** `tally check`'s flags, declared once: its options, help, manual and completion come from here, and CheckOptions is their values. */
export const CHECK_FLAGS = declareFlags({
  minBalance: { kind: 'value', value: 'amount', help: 'fail when the balance is below this (yuan)' },
  warnBalance: { kind: 'value', value: 'amount', help: 'warn when the balance is below this (yuan)' },
  maxDailyUsed: { kind: 'value', value: 'amount|percent%', help: "fail when the key's spend today exceeds this amount or share of its daily limit" },
  warnDailyUsed: { kind: 'value', value: 'amount|percent%', help: "warn when the key's spend today exceeds this" },
  maxSpend: { kind: 'value', value: 'amount', help: 'fail when the spend over --since/--until exceeds this (yuan)' },
  metric: { kind: 'value', value: 'name', help: 'with --max-spend or a runway check: the usage field holding money (default: discovered)' },
  ...windowFlags('the last 7 days, today included; with --max-spend only'),
  minRunway: { kind: 'value', value: 'days', help: 'fail when the balance lasts fewer days at the recent pace (see tally forecast)' },
  warnRunway: { kind: 'value', value: 'days', help: 'warn when the balance lasts fewer days at the recent pace' },
  days: { kind: 'value', value: 'n', help: 'with a runway check: the complete days the pace is taken from (default 7)' },
  minKeyRemaining: { kind: 'value', value: 'amount', help: "fail when the key's own total quota leaves less than this (yuan; keys with a quota)" },
  warnKeyRemaining: { kind: 'value', value: 'amount', help: "warn when the key's own total quota leaves less than this" },
  requireModel: { kind: 'list', value: 'id', help: 'fail unless this key may call the model (repeatable)' },
  budget: { kind: 'list', value: 'name[:percent%,...]', help: "fail when a budget's spend this period reaches PERCENT of its amount (default 100%; repeatable); thresholds NAME:50%,80%,100%: one check each, sent once a period with --notify, the highest fails and the others warn" },
  warnBudget: { kind: 'list', value: 'name:percent%', help: "warn when a budget's spend this period reaches PERCENT of its amount (repeatable)" },
  maxRunSpend: { kind: 'value', value: 'amount', help: 'fail when this run spent more than this since `tally mark` (yuan)' },
  warnRunSpend: { kind: 'value', value: 'amount', help: 'warn when this run spent more than this since `tally mark` (yuan)' },
  mark: { kind: 'value', value: 'name', help: 'with a run-spend check: the mark made at the start (default "run")' },
  markFile: { kind: 'value', value: 'path', help: 'with a run-spend check: the mark in this file (tally mark --file)' },
  junit: { kind: 'value', value: 'file', help: 'also write a JUnit XML report (one testcase per condition), even when a condition fails' },
  markdown: { kind: 'switch', help: 'print the Markdown summary (as for $GITHUB_STEP_SUMMARY) instead of the lines, for a pull-request comment' },
  notify: { kind: 'list', value: 'name', help: 'send an alert to this destination (tally notify add) when a condition starts to warn or fail, gets worse, or passes again (repeatable)' },
  budgetProjected: { kind: 'list', value: 'name', help: "fail when a budget's spend is projected past its amount by the period's end (repeatable)" },
  maxGrowth: { kind: 'value', value: 'percent', help: "fail when the window's spend (default the last 7 days) grew more than this on the period before it" },
  warnGrowth: { kind: 'value', value: 'percent', help: "warn when the window's spend grew more than this on the period before it" },
  compare: { kind: 'value', value: 'period', help: 'with a growth check: previous (default), a month YYYY-MM, or DATE..DATE' },
  anomalies: { kind: 'switch', help: 'fail when tally anomalies finds something in the window (default the last 30 days); one check per finding' },
  warnAnomalies: { kind: 'switch', help: 'warn when tally anomalies finds something in the window' },
  bucket: { kind: 'value', value: 'size', help: 'with an anomaly check: look at days (default) or hours' },
  maxPriceImpact: { kind: 'value', value: 'amount', help: "fail when the latest catalog repricing raises the key's usage of the last 30 days (or --since) by more than this (yuan)" },
  warnPriceImpact: { kind: 'value', value: 'amount', help: 'warn when the latest repricing raises it by more than this' },
  against: { kind: 'value', value: 'version|file', help: 'with a price-impact check: compare with this cached pricing_version or a saved catalog file (as pricing --diff --against)' },
  failOpen: { kind: 'switch', help: 'an unreachable service is a warning (exit 0), not an error' },
  ...ANOMALY_RULE_FLAGS,
});

export type CheckOptions = FlagValues<typeof CHECK_FLAGS>;

export interface BudgetGate {
  name: string;
  percent: Decimal;
  level: Level;
  projected?: boolean;
  /** One of several thresholds of one budget (`monthly:50%,80%,100%`): its check is named by its share too, and sends once a period. */
  threshold?: boolean;
}

/**
 * `monthly`, `monthly:80%` (of the amount; 100% when not said), or thresholds `monthly:50%,80%,100%`:
 * one check each (its alert sent once a period); with --budget the highest fails, the others warn.
 */
export function parseBudgetGates(text: string, flag: string, level: Level): BudgetGate[] {
  const match = /^([^:]*)(?::((?:\d{1,4}(?:\.\d{1,2})?%,){0,9}\d{1,4}(?:\.\d{1,2})?%))?$/.exec(text.trim());
  if (!match || !BUDGET_NAME.test(match[1]!)) throw new UsageError(`${flag} "${text}" is not NAME, NAME:PERCENT% or NAME:PERCENT%,PERCENT%… (e.g. monthly, monthly:80% or monthly:50%,80%,100%)`);
  if (flag === '--warn-budget' && match[2] === undefined) throw new UsageError(`--warn-budget "${text}" needs a share: NAME:PERCENT% (e.g. monthly:80%)`);
  if (flag === '--budget-projected' && match[2] !== undefined) throw new UsageError(`--budget-projected takes a budget's NAME only (it fails when the projection passes the amount)`);
  const shares = (match[2] ?? '100%').split(',').map((p) => new Decimal(p.slice(0, -1)));
  for (const percent of shares) if (percent.lte(0) || percent.gt(1000)) throw new UsageError(`${flag} "${text}": a share must be more than 0% and at most 1000%`);
  const sorted = [...new Set(shares.map((p) => p.toFixed()))].map((p) => new Decimal(p)).sort((a, b) => a.cmp(b));
  if (sorted.length !== shares.length) throw new UsageError(`${flag} "${text}": each share once`);
  if (sorted.length === 1) return [{ name: match[1]!, percent: sorted[0]!, level }];
  return sorted.map((percent, i) => ({ name: match[1]!, percent, level: level === 'fail' && i < sorted.length - 1 ? 'warn' : level, threshold: true }));
}

export interface CheckRequest {
  minBalance?: Decimal;
  warnBalance?: Decimal;
  maxDaily?: Threshold;
  warnDaily?: Threshold;
  maxSpend?: Decimal;
  minRunway?: number;
  warnRunway?: number;
  /** Whether a runway is checked (min or warn). */
  runway: boolean;
  models: string[];
  minKey?: Decimal;
  warnKey?: Decimal;
  maxRun?: Decimal;
  warnRun?: Decimal;
  runSpendAsked: boolean;
  growthGates: GrowthGate[];
  anomalyLevel?: 'fail' | 'warn';
  anomalyRule: Partial<AnomalyRule>;
  impactGates: { name: string; level: 'fail' | 'warn'; amount: Decimal }[];
  budgetGates: BudgetGate[];
  /** Whether a condition measures a window (--since and the like apply). */
  windowed: boolean;
}

/** The request the flags make; a usage error (exit 2) for a bad value or a flag without the one it goes with. */
export function checkRequest(options: CheckOptions, context: { json: boolean }): CheckRequest {
  const minBalance = options.minBalance === undefined ? undefined : parseAmount(options.minBalance, '--min-balance');
  const warnBalance = options.warnBalance === undefined ? undefined : parseAmount(options.warnBalance, '--warn-balance');
  const maxDaily = options.maxDailyUsed === undefined ? undefined : parseThreshold(options.maxDailyUsed, '--max-daily-used');
  const warnDaily = options.warnDailyUsed === undefined ? undefined : parseThreshold(options.warnDailyUsed, '--warn-daily-used');
  const maxSpend = options.maxSpend === undefined ? undefined : parseAmount(options.maxSpend, '--max-spend');
  const minRunway = options.minRunway === undefined ? undefined : wholeNumber(options.minRunway, '--min-runway', 0, 100_000);
  const warnRunway = options.warnRunway === undefined ? undefined : wholeNumber(options.warnRunway, '--warn-runway', 0, 100_000);
  const models = options.requireModel ?? [];
  const minKey = options.minKeyRemaining === undefined ? undefined : parseAmount(options.minKeyRemaining, '--min-key-remaining');
  const warnKey = options.warnKeyRemaining === undefined ? undefined : parseAmount(options.warnKeyRemaining, '--warn-key-remaining');
  const runway = minRunway !== undefined || warnRunway !== undefined;
  const maxRun = options.maxRunSpend === undefined ? undefined : parseAmount(options.maxRunSpend, '--max-run-spend');
  const warnRun = options.warnRunSpend === undefined ? undefined : parseAmount(options.warnRunSpend, '--warn-run-spend');
  const runSpendAsked = maxRun !== undefined || warnRun !== undefined;
  if (!runSpendAsked && (options.mark !== undefined || options.markFile !== undefined)) throw new UsageError('--mark and --mark-file go with --max-run-spend or --warn-run-spend');
  if (options.mark !== undefined && options.markFile !== undefined) throw new UsageError('--mark and --mark-file each name the mark; give one of them');
  if (options.markdown && context.json) throw new UsageError('--markdown and --json each print the whole result; choose one');
  const growthGates: GrowthGate[] = [
    options.maxGrowth !== undefined && { name: 'max-growth', level: 'fail' as const, percent: parsePercent(options.maxGrowth, '--max-growth') },
    options.warnGrowth !== undefined && { name: 'warn-growth', level: 'warn' as const, percent: parsePercent(options.warnGrowth, '--warn-growth') },
  ].filter((g) => g !== false);
  const anomalyLevel = options.anomalies ? 'fail' : options.warnAnomalies ? 'warn' : undefined;
  if (options.anomalies && options.warnAnomalies) throw new UsageError('--anomalies and --warn-anomalies each gate on the findings; give one of them');
  const anomalyRule = anomalyRuleOf(options);
  if (!anomalyLevel && (options.bucket !== undefined || Object.values(anomalyRule).some((v) => v !== undefined))) throw new UsageError('--bucket and the anomaly thresholds go with --anomalies or --warn-anomalies');
  if (growthGates.length === 0 && options.compare !== undefined) throw new UsageError('--compare goes with --max-growth or --warn-growth');
  const impactGates = [
    options.maxPriceImpact !== undefined && { name: 'max-price-impact', level: 'fail' as const, amount: parseAmount(options.maxPriceImpact, '--max-price-impact') },
    options.warnPriceImpact !== undefined && { name: 'warn-price-impact', level: 'warn' as const, amount: parseAmount(options.warnPriceImpact, '--warn-price-impact') },
  ].filter((g): g is { name: string; level: 'fail' | 'warn'; amount: Decimal } => Boolean(g));
  const windowed = maxSpend !== undefined || growthGates.length > 0 || anomalyLevel !== undefined || impactGates.length > 0;
  const budgetGates = [
    ...(options.budget ?? []).flatMap((text) => parseBudgetGates(text, '--budget', 'fail')),
    ...(options.warnBudget ?? []).flatMap((text) => parseBudgetGates(text, '--warn-budget', 'warn')),
    ...(options.budgetProjected ?? []).flatMap((text) => parseBudgetGates(text, '--budget-projected', 'fail').map((g) => ({ ...g, projected: true }))),
  ];
  if (impactGates.length === 0 && options.against !== undefined) throw new UsageError('--against goes with --max-price-impact or --warn-price-impact');
  if ([minBalance, warnBalance, maxDaily, warnDaily, maxSpend, minRunway, warnRunway, maxRun, warnRun, minKey, warnKey, anomalyLevel].every((c) => c === undefined) && models.length === 0 && budgetGates.length === 0 && growthGates.length === 0 && impactGates.length === 0) {
    throw new UsageError('no condition given: use --min-balance, --max-daily-used, --max-spend, --min-runway, --min-key-remaining, --budget, --max-run-spend, --max-growth, --anomalies, --max-price-impact or --require-model (see `tally check --help`)');
  }
  if (!windowed && (options.since || options.until || options.month || options.last)) throw new UsageError('--since, --until, --month and --last go with --max-spend, a growth, anomaly or price-impact check (the window they measure)');
  if (impactGates.length > 0 && (options.until || options.month || options.last) && maxSpend === undefined && growthGates.length === 0 && !anomalyLevel) throw new UsageError('a price-impact check takes --since only (the usage it prices runs to now)');
  if (!windowed && !runway && (options.metric || options.utcOffset)) throw new UsageError('--metric and --utc-offset go with --max-spend, a growth or anomaly check, or --min-runway/--warn-runway');
  if (!runway && options.days !== undefined) throw new UsageError('--days goes with --min-runway or --warn-runway');
  return { minBalance, warnBalance, maxDaily, warnDaily, maxSpend, minRunway, warnRunway, runway, models, minKey, warnKey, maxRun, warnRun, runSpendAsked, growthGates, anomalyLevel, anomalyRule, impactGates, budgetGates, windowed };
}
