// tally check: budget assertions for CI. One PASS/WARN/FAIL line per condition; exit 5 when
// any fails. Service and auth errors keep their own exit codes unless --fail-open.
import { appendFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { AuthError, CheckFailed, RateLimitError, ServiceError, UsageError } from '../errors.js';
import { type Balance, fetchBalance } from '../api/balance.js';
import { fetchModels } from '../api/catalog.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { Decimal, decimalText } from '../domain/money.js';
import { emit } from '../output/emit.js';
import { escapeControl } from '../output/escape.js';
import { addWindowOptions, loadUsageSeries } from './usage-series.js';

interface CheckOptions {
  minBalance?: string;
  warnBalance?: string;
  maxDailyUsed?: string;
  warnDailyUsed?: string;
  maxSpend?: string;
  metric?: string;
  requireModel?: string[];
  since?: string;
  until?: string;
  utcOffset?: string;
  failOpen?: boolean;
}

export type Level = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  name: string;
  ok: boolean;
  level: Level;
  actual: string;
  limit: string;
}

export function configure(command: Command): void {
  command
    .option('--min-balance <amount>', 'fail when the balance is below this (yuan)')
    .option('--warn-balance <amount>', 'warn when the balance is below this (yuan)')
    .option('--max-daily-used <amount|percent%>', "fail when the key's spend today exceeds this amount or share of its daily limit")
    .option('--warn-daily-used <amount|percent%>', "warn when the key's spend today exceeds this")
    .option('--max-spend <amount>', 'fail when spend over --since/--until (default: the last 7 days) exceeds this (yuan)')
    .option('--metric <name>', 'with --max-spend: the usage field holding money (default: discovered)');
  addWindowOptions(command);
  command
    .option('--require-model <id>', 'fail unless this key may call the model (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--fail-open', 'an unreachable service is a warning (exit 0), not an error');
}

/** An amount in yuan as a decimal; `¥` or `CNY` may precede it, `$` may not. */
export function parseAmount(text: string, flag: string): Decimal {
  const cleaned = text.trim().replace(/^(?:¥|CNY\s*)/i, '');
  if (!/^\d+(?:\.\d+)?$/.test(cleaned)) throw new UsageError(`${flag} "${text}" is not an amount in yuan (e.g. 100 or 12.50)`);
  return new Decimal(cleaned);
}

type Threshold = { kind: 'amount'; value: Decimal } | { kind: 'percent'; value: Decimal };

export function parseThreshold(text: string, flag: string): Threshold {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (percent) return { kind: 'percent', value: new Decimal(percent[1]!) };
  return { kind: 'amount', value: parseAmount(text, flag) };
}

const formatThreshold = (t: Threshold) => (t.kind === 'percent' ? `${decimalText(t.value)}%` : decimalText(t.value));

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as CheckOptions;
  const minBalance = options.minBalance === undefined ? undefined : parseAmount(options.minBalance, '--min-balance');
  const warnBalance = options.warnBalance === undefined ? undefined : parseAmount(options.warnBalance, '--warn-balance');
  const maxDaily = options.maxDailyUsed === undefined ? undefined : parseThreshold(options.maxDailyUsed, '--max-daily-used');
  const warnDaily = options.warnDailyUsed === undefined ? undefined : parseThreshold(options.warnDailyUsed, '--warn-daily-used');
  const maxSpend = options.maxSpend === undefined ? undefined : parseAmount(options.maxSpend, '--max-spend');
  const models = options.requireModel ?? [];
  if ([minBalance, warnBalance, maxDaily, warnDaily, maxSpend].every((c) => c === undefined) && models.length === 0) {
    throw new UsageError('no condition given: use --min-balance, --max-daily-used, --max-spend or --require-model (see `tally check --help`)');
  }
  if (maxSpend === undefined && (options.since || options.until || options.metric)) {
    throw new UsageError('--since, --until and --metric go with --max-spend');
  }

  const settings = await ctx.settings();
  const needsKey = [maxDaily && '--max-daily-used', warnDaily && '--warn-daily-used', maxSpend && '--max-spend', models.length > 0 && '--require-model'].filter(Boolean);
  if (settings.credential?.kind === 'device-token' && needsKey.length > 0) {
    throw new AuthError(`${needsKey.join(', ')} need${needsKey.length === 1 ? 's' : ''} an API key; a device token can check the balance only (--min-balance, --warn-balance). Use \`tally login --with-token\` or TALLY_API_KEY`);
  }

  const checks: CheckResult[] = [];
  const add = (name: string, level: Level, actual: string, limit: string) => checks.push({ name, ok: level !== 'fail', level, actual, limit });
  const guard = async <T>(names: string[], load: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await load();
    } catch (error) {
      if (!options.failOpen || !isUnreachable(error)) throw error;
      for (const name of names) add(name, 'warn', `service unreachable: ${(error as Error).message}`, '');
      return undefined;
    }
  };

  const client = await ctx.client();
  const wantsBalance = [minBalance, warnBalance, maxDaily, warnDaily].some((c) => c !== undefined);
  const balanceNames = [minBalance && 'min-balance', warnBalance && 'warn-balance', maxDaily && 'max-daily-used', warnDaily && 'warn-daily-used'].filter((n): n is string => Boolean(n));
  const [balance, spend, available] = await Promise.all([
    wantsBalance ? guard(balanceNames, () => fetchBalance(client)) : undefined,
    maxSpend !== undefined ? guard(['max-spend'], () => loadSpend(ctx, options)) : undefined,
    models.length > 0 ? guard(models.map((m) => `require-model:${m}`), () => fetchModels(client, 'native')) : undefined,
  ]);

  if (balance) {
    if (minBalance) add('min-balance', balance.balance.gte(minBalance) ? 'pass' : 'fail', decimalText(balance.balance), decimalText(minBalance));
    if (warnBalance) add('warn-balance', balance.balance.gte(warnBalance) ? 'pass' : 'warn', decimalText(balance.balance), decimalText(warnBalance));
    if (maxDaily) dailyCheck(add, 'max-daily-used', 'fail', balance, maxDaily);
    if (warnDaily) dailyCheck(add, 'warn-daily-used', 'warn', balance, warnDaily);
  }
  if (spend && maxSpend) add('max-spend', spend.amount.lte(maxSpend) ? 'pass' : 'fail', decimalText(spend.amount), decimalText(maxSpend));
  if (available) {
    const ids = new Set(available.map((m) => String(m.id)));
    for (const model of models) add(`require-model:${model}`, ids.has(model) ? 'pass' : 'fail', ids.has(model) ? 'available' : 'not available to this key', model);
  }

  const failed = checks.filter((c) => c.level === 'fail');
  const ok = failed.length === 0;
  await emit(ctx, {
    json: { ok, checks },
    human: () => renderChecks(checks, ctx, spend?.note),
  });
  reportToGitHub(ctx, checks);
  if (!ok) throw new CheckFailed(`${failed.length} of ${checks.length} check${checks.length === 1 ? '' : 's'} failed`);
}

function dailyCheck(add: (name: string, level: Level, actual: string, limit: string) => void, name: string, level: Level, balance: Balance, threshold: Threshold): void {
  const key = balance.apiKey;
  if (!key || key.dailyUsed === undefined) {
    add(name, level, key ? 'the key reports no daily spend' : 'no key-level limit (device token)', formatThreshold(threshold));
    return;
  }
  if (threshold.kind === 'amount') {
    add(name, key.dailyUsed.lte(threshold.value) ? 'pass' : level, decimalText(key.dailyUsed), formatThreshold(threshold));
    return;
  }
  if (!key.dailyLimit || key.dailyLimit.isZero()) {
    add(name, level, `${decimalText(key.dailyUsed)} (the key has no daily limit to take a share of)`, formatThreshold(threshold));
    return;
  }
  const share = key.dailyUsed.div(key.dailyLimit).mul(100);
  add(name, share.lte(threshold.value) ? 'pass' : level, `${decimalText(share.toDecimalPlaces(2))}%`, formatThreshold(threshold));
}

async function loadSpend(ctx: Context, options: CheckOptions): Promise<{ amount: Decimal; note?: string }> {
  const series = await loadUsageSeries(ctx, { bucket: 'day', since: options.since, until: options.until, utcOffset: options.utcOffset });
  const candidates = Object.entries(series.totals).filter(([, value]) => isDecimalString(value)).map(([name]) => name);
  const metric = options.metric ?? series.shape?.moneyMetric ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (options.metric !== undefined && series.totals[options.metric] === undefined && series.filled < series.buckets.length) {
    throw new UsageError(`--metric "${options.metric}" is not a field of the usage totals (they have: ${Object.keys(series.totals).join(', ') || 'none'})`);
  }
  if (metric === undefined) {
    if (series.filled === series.buckets.length) return { amount: new Decimal(0), note: 'no usage in the window' };
    throw new UsageError(`cannot tell which usage field holds money (${candidates.join(', ') || 'none is a decimal string'}); name it with --metric`);
  }
  const value = series.totals[metric];
  const noCalls = series.filled === series.buckets.length;
  if (value === undefined && noCalls) return { amount: new Decimal(0), note: 'no usage in the window' };
  if (!isDecimalString(value)) throw new ServiceError(`usage totals.${metric} is not a decimal amount`);
  return { amount: new Decimal(value), note: `spend = totals.${metric} over ${new Date(series.window.start * 1000).toISOString().slice(0, 10)} to ${new Date(series.window.end * 1000).toISOString().slice(0, 10)} (end exclusive)` };
}

function isUnreachable(error: unknown): boolean {
  if (error instanceof RateLimitError) return true;
  return error instanceof ServiceError && (error.kind === 'network' || error.kind === 'timeout' || (error.status ?? 0) >= 500);
}

function describe(check: CheckResult, yuan: (text: string) => string): string {
  const money = (text: string) => (isDecimalString(text) ? yuan(text) : text);
  if (check.name.startsWith('require-model:')) return `${check.limit}: ${check.actual}`;
  if (check.limit === '') return check.actual;
  return `actual ${money(check.actual)}, limit ${money(check.limit)}`;
}

async function renderChecks(checks: CheckResult[], ctx: Context, note: string | undefined): Promise<string> {
  const [{ styleFor }, { yuan }] = await Promise.all([import('../output/style.js'), import('../output/money.js')]);
  const paint = (await styleFor(ctx)).paint;
  const label = { pass: paint.green('PASS'), warn: paint.yellow('WARN'), fail: paint.red('FAIL') };
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map((c) => `${label[c.level]}  ${c.name.padEnd(width)}  ${escapeControl(describe(c, (t) => yuan(t)))}`);
  if (note) lines.push(paint.dim(note));
  return `${lines.join('\n')}\n`;
}

/** GitHub Actions: annotations for failures and warnings, and a Markdown summary. */
function reportToGitHub(ctx: Context, checks: CheckResult[]): void {
  if (ctx.env.GITHUB_ACTIONS !== 'true') return;
  const escape = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const text = (c: CheckResult) => (c.limit === '' ? `${c.name}: ${c.actual}` : `${c.name}: actual ${c.actual}, limit ${c.limit}`);
  // The runner reads workflow commands from both streams; keep a --json document on stdout clean.
  const write = (line: string) => (ctx.options.json ? ctx.io.err(line) : ctx.io.out(line));
  for (const check of checks) {
    if (check.level === 'fail') write(`::error title=tally check::${escape(text(check))}\n`);
    if (check.level === 'warn') write(`::warning title=tally check::${escape(text(check))}\n`);
  }
  const summary = ctx.env.GITHUB_STEP_SUMMARY;
  if (!summary) return;
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const icon = { pass: '✅ pass', warn: '⚠️ warn', fail: '❌ fail' };
  const markdown = [
    '### tally check',
    '',
    '| result | check | actual | limit |',
    '| --- | --- | --- | --- |',
    ...checks.map((c) => `| ${icon[c.level]} | ${cell(c.name)} | ${cell(c.actual)} | ${cell(c.limit)} |`),
    '',
  ].join('\n');
  appendFileSync(summary, `${markdown}\n`);
}
