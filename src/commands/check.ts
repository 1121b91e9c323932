// tally check: budget assertions for CI. One PASS/WARN/FAIL line per condition; exit 5 when
// any fails. Service and auth errors keep their own exit codes unless --fail-open.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { AuthError, CheckFailed, NotMeasured, UsageError, isUnreachable } from '../errors.js';
import { balanceOf } from '../figures/balance.js';
import { fetchModels } from '../api/catalog.js';
import { Decimal, decimalText } from '../domain/money.js';
import { emit } from '../output/emit.js';
import { type CheckResult, type Unit, checkLines, checksMarkdown, gateWords, renderChecks, reportToGitHub, writeJunit } from '../output/check-report.js';
import { wholeNumber } from '../flags/flag-values.js';
import type { Threshold } from '../flags/amount-flags.js';
import { runSpend } from '../domain/run-spend.js';
import { readingOf } from '../settings/marks.js';
import { notifyChecks } from '../notify/alerting.js';
import { fetchKeyQuota } from '../figures/key-quota.js';
import { addWindowOptions } from '../flags/options.js';
import { loadForecast } from '../figures/forecast.js';
import { loadBudgets } from '../figures/budgets.js';
import { readCounters } from '../figures/run-spend.js';
import { destinationsNamed } from '../notify/destinations.js';
import { markFor } from '../figures/run-spend.js';
import { anomalyGates, balanceGates, budgetGate, budgetGateName, loadSpend, growthGates as growthChecks, keyQuotaCheck, modelGates, priceImpactGates, readQuota, runSpendGates, runwayGates } from '../figures/check-gates.js';
import { addAnomalyRuleOptions } from '../flags/anomaly-flags.js';
import { type BudgetGate, type CheckOptions, type CheckRequest, checkRequest } from '../flags/check-request.js';
import type { CommandLine } from '../cli/command.js';

export type { CheckResult, Level, Unit } from '../output/check-report.js';
export { checkFleetRow as fleetRow } from '../output/check-report.js';

export function configure(command: Command): void {
  command
    .option('--min-balance <amount>', 'fail when the balance is below this (yuan)')
    .option('--warn-balance <amount>', 'warn when the balance is below this (yuan)')
    .option('--max-daily-used <amount|percent%>', "fail when the key's spend today exceeds this amount or share of its daily limit")
    .option('--warn-daily-used <amount|percent%>', "warn when the key's spend today exceeds this")
    .option('--max-spend <amount>', 'fail when the spend over --since/--until exceeds this (yuan)')
    .option('--metric <name>', 'with --max-spend or a runway check: the usage field holding money (default: discovered)');
  addWindowOptions(command, 'the last 7 days, today included; with --max-spend only');
  command
    .option('--min-runway <days>', 'fail when the balance lasts fewer days at the recent pace (see tally forecast)')
    .option('--warn-runway <days>', 'warn when the balance lasts fewer days at the recent pace')
    .option('--days <n>', 'with a runway check: the complete days the pace is taken from (default 7)')
    .option('--min-key-remaining <amount>', "fail when the key's own total quota leaves less than this (yuan; keys with a quota)")
    .option('--warn-key-remaining <amount>', "warn when the key's own total quota leaves less than this")
    .option('--require-model <id>', 'fail unless this key may call the model (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--budget <name[:percent%,...]>', 'fail when a budget\'s spend this period reaches PERCENT of its amount (default 100%; repeatable); thresholds NAME:50%,80%,100%: one check each, sent once a period with --notify, the highest fails and the others warn', (value: string, all: string[] = []) => [...all, value])
    .option('--warn-budget <name:percent%>', 'warn when a budget\'s spend this period reaches PERCENT of its amount (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--max-run-spend <amount>', 'fail when this run spent more than this since `tally mark` (yuan)')
    .option('--warn-run-spend <amount>', 'warn when this run spent more than this since `tally mark` (yuan)')
    .option('--mark <name>', 'with a run-spend check: the mark made at the start (default "run")')
    .option('--mark-file <path>', 'with a run-spend check: the mark in this file (tally mark --file)')
    .option('--junit <file>', 'also write a JUnit XML report (one testcase per condition), even when a condition fails')
    .option('--markdown', 'print the Markdown summary (as for $GITHUB_STEP_SUMMARY) instead of the lines, for a pull-request comment')
    .option('--notify <name>', 'send an alert to this destination (tally notify add) when a condition starts to warn or fail, gets worse, or passes again (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--budget-projected <name>', 'fail when a budget\'s spend is projected past its amount by the period\'s end (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--max-growth <percent>', "fail when the window's spend (default the last 7 days) grew more than this on the period before it")
    .option('--warn-growth <percent>', "warn when the window's spend grew more than this on the period before it")
    .option('--compare <period>', 'with a growth check: previous (default), a month YYYY-MM, or DATE..DATE')
    .option('--anomalies', 'fail when tally anomalies finds something in the window (default the last 30 days); one check per finding')
    .option('--warn-anomalies', 'warn when tally anomalies finds something in the window')
    .option('--bucket <size>', 'with an anomaly check: look at days (default) or hours')
    .option('--max-price-impact <amount>', "fail when the latest catalog repricing raises the key's usage of the last 30 days (or --since) by more than this (yuan)")
    .option('--warn-price-impact <amount>', 'warn when the latest repricing raises it by more than this')
    .option('--against <version|file>', 'with a price-impact check: compare with this cached pricing_version or a saved catalog file (as pricing --diff --against)')
    .option('--fail-open', 'an unreachable service is a warning (exit 0), not an error');
  addAnomalyRuleOptions(command);
}

/** The gates, typed and checked (flags/check-request.ts), with the flags they came from (the window, --fail-open, --notify, the report files). */
export type CheckRun = CheckRequest & { options: CheckOptions };

export function parse(flags: Record<string, unknown>, line: CommandLine): CheckRun {
  const options = flags as CheckOptions;
  return { ...checkRequest(options, flags, { json: line.output.json }), options };
}

export async function run(request: CheckRun, ctx: Context): Promise<void> {
  const { options, minBalance, warnBalance, maxDaily, warnDaily, maxSpend, minRunway, warnRunway, models, minKey, warnKey, runway, maxRun, warnRun, runSpendAsked, growthGates, anomalyLevel, anomalyRule, impactGates, budgetGates } = request;

  const settings = await ctx.settings();
  // Destinations are checked before any request: a name that is not stored is exit 2 at once.
  const destinations = options.notify?.length ? await destinationsNamed(ctx, [...new Set(options.notify)]) : [];
  // The mark is read before any request: a missing or foreign one is exit 2 at once.
  const mark = runSpendAsked ? await markFor(ctx, options) : undefined;
  const needsKey = [maxDaily && '--max-daily-used', warnDaily && '--warn-daily-used', maxSpend && '--max-spend', runway && '--min-runway/--warn-runway', models.length > 0 && '--require-model', budgetGates.length > 0 && '--budget', (minKey || warnKey) && '--min-key-remaining/--warn-key-remaining', growthGates.length > 0 && '--max-growth/--warn-growth', anomalyLevel && '--anomalies', impactGates.length > 0 && '--max-price-impact'].filter(Boolean);
  if (settings.credential?.kind === 'device-token' && needsKey.length > 0) {
    throw new AuthError(`${needsKey.join(', ')} need${needsKey.length === 1 ? 's' : ''} an API key; a device token can check the balance only (--min-balance, --warn-balance). Use \`tally login --with-token\` or TALLY_API_KEY`);
  }

  const checks: CheckResult[] = [];
  const add = (check: Omit<CheckResult, 'ok'>) => checks.push({ ...check, ok: check.level !== 'fail' });
  const skipped: string[] = [];
  // --fail-open: a condition whose data could not be fetched is a warning, said on stderr too.
  const guard = async <T>(names: { name: string; limit: string; unit: Unit }[], load: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await load();
    } catch (error) {
      if (!options.failOpen || !isUnreachable(error)) throw error;
      // A gateway that hung past --timeout: the skipped conditions are still reported.
      if (ctx.signal.aborted && !ctx.interrupt.aborted) ctx.graceAfterDeadline();
      const reason = error instanceof NotMeasured ? (error as Error).message : `service unreachable: ${(error as Error).message}`;
      for (const { name, limit, unit } of names) add({ name, level: 'warn', actual: null, limit, unit, detail: `skipped, ${reason}` });
      skipped.push(...names.map((n) => n.name));
      ctx.warn(`--fail-open: skipped ${names.map((n) => n.name).join(', ')} because ${error instanceof NotMeasured ? 'it could not be measured' : 'the service could not be reached'} (${(error as Error).message})`);
      return undefined;
    }
  };

  const client = await ctx.client();
  const thresholdLimit = (t: Threshold) => ({ limit: decimalText(t.value), unit: t.kind === 'percent' ? ('percent' as const) : ('CNY' as const) });
  const balanceChecks = [
    minBalance && { name: 'min-balance', limit: decimalText(minBalance), unit: 'CNY' as const },
    warnBalance && { name: 'warn-balance', limit: decimalText(warnBalance), unit: 'CNY' as const },
    maxDaily && { name: 'max-daily-used', ...thresholdLimit(maxDaily) },
    warnDaily && { name: 'warn-daily-used', ...thresholdLimit(warnDaily) },
  ].filter((c): c is { name: string; limit: string; unit: 'CNY' | 'percent' } => Boolean(c));
  const runwayChecks = [
    minRunway !== undefined && { name: 'min-runway', limit: String(minRunway), unit: 'days' as const },
    warnRunway !== undefined && { name: 'warn-runway', limit: String(warnRunway), unit: 'days' as const },
  ].filter((c): c is { name: string; limit: string; unit: 'days' } => Boolean(c));
  const balanceRequest = balanceChecks.length > 0 || runway || budgetGates.length > 0 ? balanceOf(ctx) : undefined;
  // The forecast (its balance and day buckets) serves the runway checks and the budgets' projections alike.
  const forecastRequest = runway || budgetGates.length > 0 ? loadForecast(ctx, { days: options.days === undefined ? undefined : wholeNumber(options.days, '--days', 1, 365), metric: options.metric, utcOffset: options.utcOffset, keyQuota: runway, forGate: true }) : undefined;
  forecastRequest?.catch(() => undefined);
  const budgetNames = [...new Set(budgetGates.map((g) => g.name))];
  const runChecks = [
    maxRun !== undefined && { name: 'max-run-spend', limit: decimalText(maxRun), unit: mark?.currency ?? 'CNY' },
    warnRun !== undefined && { name: 'warn-run-spend', limit: decimalText(warnRun), unit: mark?.currency ?? 'CNY' },
  ].filter((c): c is { name: string; limit: string; unit: string } => Boolean(c));
  const keyChecks = [
    minKey && { name: 'min-key-remaining', limit: decimalText(minKey), unit: 'CNY', level: 'fail' as const, value: minKey },
    warnKey && { name: 'warn-key-remaining', limit: decimalText(warnKey), unit: 'CNY', level: 'warn' as const, value: warnKey },
  ].filter((c): c is { name: string; limit: string; unit: string; level: 'fail' | 'warn'; value: Decimal } => Boolean(c));
  // The runway's forecast already asks for the key's quota: one request to the strictly limited token endpoint.
  const keyQuotaRequest = keyChecks.length > 0 ? (forecastRequest && runway ? forecastRequest.then((f) => f.allowance.quota) : fetchKeyQuota(client)).then(readQuota) : undefined;
  const windowRequest = { since: options.since, until: options.until, month: options.month, last: options.last, utcOffset: options.utcOffset, metric: options.metric };
  // The words of the gates' details: the view's amounts, windows and findings.
  const words = await gateWords();
  const [balance, spend, forecast, available, budgets, counters, keyQuota, growth, anomalies, impact] = await Promise.all([
    balanceRequest && balanceChecks.length > 0 ? guard(balanceChecks, () => balanceRequest) : undefined,
    maxSpend !== undefined ? guard([{ name: 'max-spend', limit: decimalText(maxSpend), unit: 'CNY' }], () => loadSpend(ctx, options, words)) : undefined,
    // A runway is the shorter of the balance's and the key quota's: a quota that could not be read leaves it unknown.
    runway ? guard(runwayChecks, () => forecastRequest!.then((f) => (readQuota(f.allowance.quota), f))) : undefined,
    models.length > 0 ? guard(models.map((m) => ({ name: `require-model:${m}`, limit: m, unit: 'model' as const })), () => fetchModels(client, 'native')) : undefined,
    budgetGates.length > 0 ? guard(budgetGates.map((g) => ({ name: gateName(g), limit: '', unit: 'CNY' })), () => loadBudgets(ctx, budgetNames, forecastRequest)) : undefined,
    // A mark that records no reading was taken (mark --fail-open): with --fail-open the run's spend is not measured, said as such.
    runSpendAsked && !mark?.not_taken ? guard(runChecks, () => readCounters(ctx)) : undefined,
    keyQuotaRequest ? guard(keyChecks, () => keyQuotaRequest) : undefined,
    growthGates.length > 0 ? guard(growthGates.map((g) => ({ name: g.name, limit: decimalText(g.percent), unit: 'percent' })), () => growthChecks(ctx, { ...windowRequest, compare: options.compare ?? 'previous' }, growthGates, words)) : undefined,
    anomalyLevel ? guard([{ name: anomalyLevel === 'fail' ? 'anomalies' : 'warn-anomalies', limit: '', unit: 'finding' }], () => anomalyGates(ctx, { ...windowRequest, bucket: options.bucket, rule: anomalyRule }, anomalyLevel, words)) : undefined,
    impactGates.length > 0 ? guard(impactGates.map((g) => ({ name: g.name, limit: decimalText(g.amount), unit: 'CNY' })), () => priceImpactGates(ctx, options.since, impactGates, words, options.against)) : undefined,
  ]);
  for (const gate of [...(growth ?? []), ...(anomalies ?? []), ...(impact ?? [])]) add(gate);

  if (balance) for (const gate of balanceGates(balance, { minBalance, warnBalance, maxDaily, warnDaily }, words)) add(gate);
  if (spend && maxSpend) add({ name: 'max-spend', level: spend.amount.lte(maxSpend) ? 'pass' : 'fail', actual: decimalText(spend.amount), limit: decimalText(maxSpend), unit: balance?.currency ?? 'CNY', detail: spend.detail });
  if (forecast) for (const gate of runwayGates(forecast, { minRunway, warnRunway })) add(gate);
  if (budgets) {
    for (const gate of budgetGates) {
      const figures = budgets.budgets.find((b) => b.name === gate.name)!;
      const gated = await guard([{ name: gateName(gate), limit: decimalText(new Decimal(figures.budget.amount)), unit: figures.budget.currency ?? budgets.currency }], async () => budgetGate(gate, figures, budgets.currency, words));
      if (gated) add(gated);
    }
  }
  if (mark?.not_taken) {
    const why = `no mark was taken at the start of the job (${mark.not_taken})`;
    if (!options.failOpen) throw new UsageError(`the mark records that ${why}; add --fail-open to warn and skip the run-spend check, or mark again`);
    for (const c of runChecks) add({ name: c.name, level: 'warn', actual: null, limit: c.limit, unit: c.unit, detail: `skipped, ${why}` });
    skipped.push(...runChecks.map((c) => c.name));
    ctx.warn(`--fail-open: skipped ${runChecks.map((c) => c.name).join(', ')} because ${why}`);
  }
  if (counters && mark && !mark.not_taken) for (const gate of runSpendGates(runSpend(readingOf(mark), counters.reading), mark.at_iso, counters.balance.currency, { maxRun, warnRun })) add(gate);
  if (keyQuota) for (const c of keyChecks) add(keyQuotaCheck(c, keyQuota, words));
  // A model the key cannot call: the one of its list most likely meant (`gpt5`: gpt-5), from the one suggestion rule.
  if (available) for (const gate of modelGates(available, models)) add(gate);

  const failed = checks.filter((c) => c.level === 'fail');
  const ok = failed.length === 0;
  // --exact: every digit of each amount, in the lines, the annotations and the summary alike.
  const lines = checkLines(checks, ctx.options.exact);
  const groups = [{ checks, lines, skipped }];
  // The JUnit report is written whole before anything else can stop the run (a failing check included);
  // a report that cannot be written is said after the results, which are printed whatever happens to it.
  const reportError = options.junit ? writeJunit(ctx, options.junit, groups) : undefined;
  await emit(ctx, {
    json: { ok, checks },
    human: () => (options.markdown ? checksMarkdown(groups) : renderChecks(checks, lines, ctx)),
  });
  reportToGitHub(ctx, groups);
  if (destinations.length) {
    const periodOf = (name: string) => budgets?.budgets.find((b) => name === `budget:${b.name}` || name === `budget-projected:${b.name}`)?.period.start;
    await notifyChecks(ctx, settings.profile, destinations, checks.map((c, i) => ({ name: c.name, level: c.level, actual: c.actual, limit: c.limit, unit: c.unit, text: lines[i]!.text, period: periodOf(c.name), ...(c.scope === undefined ? {} : { scope: c.scope }), ...(c.window ? { window: c.window } : {}) })));
  }
  if (reportError) throw reportError;
  if (!ok) throw new CheckFailed(`${failed.length} of ${checks.length} check${checks.length === 1 ? '' : 's'} failed`);
}

function gateName(gate: BudgetGate): string {
  return budgetGateName(gate);
}

