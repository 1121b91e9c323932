// tally forecast: how long the balance lasts at the recent pace, the month's spend so far and
// projected, and (for a key with a daily limit) where today is heading. Two requests, issued
// together: the balance, and one usage request of day buckets.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { emit } from '../output/emit.js';
import { DEFAULT_BASIS_DAYS, type ForecastOptions, forecastJson, loadForecast } from '../figures/forecast.js';
import { renderForecast } from '../output/forecast.js';

export { forecastFleetRow as fleetRow } from '../output/forecast.js';
import { wholeNumber } from '../flags/flag-values.js';
import { UsageError } from '../errors.js';

export const flags = declareFlags({
  days: { kind: 'value', value: 'n', help: `the complete days the pace is taken from (default ${DEFAULT_BASIS_DAYS})` },
  metric: { kind: 'value', value: 'name', help: 'the usage field holding money (default: discovered)' },
  utcOffset: { kind: 'value', value: '+HH:MM', help: "the gateway's day grid (default: inferred from usage)" },
  backtest: { kind: 'switch', help: "how the forecast's method did over past weeks: its projection at each week's start against what the week cost" },
  weeks: { kind: 'value', value: 'n', help: 'with --backtest: how many past weeks (default 8, at most 52)' },
});

/** The forecast asked for, or how its method did over past weeks (--backtest). */
export type ForecastRequest = (ForecastOptions & { backtest?: undefined }) | (ForecastOptions & { backtest: true; weeks: number });

export function parse(options: FlagValues<typeof flags>): ForecastRequest {
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

