// tally forecast: how long the balance lasts at the recent pace, the month's spend so far and
// projected, and (for a key with a daily limit) where today is heading. Two requests, issued
// together: the balance, and one usage request of day buckets.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { emit } from '../output/emit.js';
import { DEFAULT_BASIS_DAYS, type ForecastOptions, forecastJson, loadForecast } from '../figures/forecast.js';
import { renderForecast } from '../output/forecast.js';

export { forecastFleetRow as fleetRow } from '../output/forecast.js';
import { wholeNumber } from '../flags/flag-values.js';
import { UsageError } from '../errors.js';

export function configure(command: Command): void {
  command
    .option('--days <n>', `the complete days the pace is taken from (default ${DEFAULT_BASIS_DAYS})`)
    .option('--metric <name>', 'the usage field holding money (default: discovered)')
    .option('--utc-offset <+HH:MM>', "the gateway's day grid (default: inferred from usage)")
    .option('--backtest', "how the forecast's method did over past weeks: its projection at each week's start against what the week cost")
    .option('--weeks <n>', 'with --backtest: how many past weeks (default 8, at most 52)');
}

/** The forecast asked for, or how its method did over past weeks (--backtest). */
export type ForecastRequest = (ForecastOptions & { backtest?: undefined }) | (ForecastOptions & { backtest: true; weeks: number });

export function parse(flags: Record<string, unknown>): ForecastRequest {
  const options = flags as Omit<ForecastOptions, 'days'> & { days?: string; backtest?: boolean; weeks?: string };
  const days = options.days === undefined ? undefined : wholeNumber(options.days, '--days', 1, 365);
  if (options.weeks !== undefined && !options.backtest) throw new UsageError('--weeks goes with --backtest (tally forecast --backtest --weeks 12)');
  const common = { days, metric: options.metric, utcOffset: options.utcOffset };
  return options.backtest ? { ...common, backtest: true, weeks: options.weeks === undefined ? 8 : wholeNumber(options.weeks, '--weeks', 1, 52) } : common;
}

export async function run(request: ForecastRequest, ctx: Context): Promise<void> {
  if (request.backtest) {
    const { backtestJson, loadBacktest } = await import('../figures/forecast.js');
    const loaded = await loadBacktest(ctx, request);
    await emit(ctx, { json: () => backtestJson(loaded), human: async () => (await import('../output/forecast.js')).renderBacktest(loaded, ctx) });
    return;
  }
  const loaded = await loadForecast(ctx, request);
  await emit(ctx, { json: () => forecastJson(loaded), human: () => renderForecast(loaded, ctx) });
}

