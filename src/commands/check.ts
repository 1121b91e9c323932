// tally check: budget assertions for CI. One PASS/WARN/FAIL line per condition; exit 5 when
// any fails. Service and auth errors keep their own exit codes unless --fail-open.
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
import { loadForecast } from '../figures/forecast.js';
import { loadBudgets } from '../figures/budgets.js';
import { readCounters } from '../figures/run-spend.js';
import { destinationsNamed } from '../notify/destinations.js';
import { markFor } from '../figures/run-spend.js';
import { anomalyGates, balanceGates, budgetGate, budgetGateName, gatePeriod, loadSpend, growthGates as growthChecks, keyQuotaCheck, modelGates, priceImpactGates, readQuota, runSpendGates, runwayGates } from '../figures/check-gates.js';
import { type BudgetGate, type CheckOptions, type CheckRequest, checkRequest } from '../flags/check-request.js';
import type { CommandLine } from '../cli/command.js';

export type { CheckResult, Level, Unit } from '../output/check-report.js';
export { checkFleetRow as fleetRow } from '../output/check-report.js';

export { CHECK_FLAGS as flags } from '../flags/check-request.js';

/** The gates, typed and checked (flags/check-request.ts), with the flags they came from (the window, --fail-open, --notify, the report files). */
export type CheckRun = CheckRequest & { options: CheckOptions };

export function parse(options: CheckOptions, line: CommandLine): CheckRun {
  return { ...checkRequest(options, { json: line.output.json }), options };
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

  await reportChecks(ctx, checks, skipped, { options, destinations, profile: settings.profile, budgets: budgets?.budgets ?? [] });
}

function gateName(gate: BudgetGate): string {
  return budgetGateName(gate);
}

/**
 * The checks said everywhere they go: the lines (or the Markdown summary), --json, the JUnit file,
 * GitHub's annotations and summary, the alerts; then the exit: 5 when one failed.
 */
async function reportChecks(ctx: Context, checks: CheckResult[], skipped: string[], run: { options: CheckOptions; destinations: Awaited<ReturnType<typeof destinationsNamed>>; profile: string; budgets: readonly { name: string; period: { start: number } }[] }): Promise<void> {
  const { options, destinations } = run;
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
    await notifyChecks(ctx, run.profile, destinations, checks.map((c, i) => ({ name: c.name, level: c.level, actual: c.actual, limit: c.limit, unit: c.unit, text: lines[i]!.text, period: gatePeriod(c.name, run.budgets), ...(c.scope === undefined ? {} : { scope: c.scope }), ...(c.window ? { window: c.window } : {}) })));
  }
  if (reportError) throw reportError;
  if (!ok) throw new CheckFailed(`${failed.length} of ${checks.length} check${checks.length === 1 ? '' : 's'} failed`);
}
