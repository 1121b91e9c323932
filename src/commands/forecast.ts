// tally forecast: how long the balance lasts at the recent pace, the month's spend so far and
// projected, and (for a key with a daily limit) where today is heading. Two requests, issued
// together: the balance, and one usage request of day buckets.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { emit } from '../output/emit.js';
import { keyQuotaRows } from '../output/key-quota.js';
import { describeGrid } from '../output/usage.js';
import { DEFAULT_BASIS_DAYS, type ForecastOptions, type LoadedForecast, forecastJson, loadForecast } from '../figures/forecast.js';
import { forecastRows } from '../output/forecast.js';
import { wholeNumber } from '../cli/flag-values.js';

export function configure(command: Command): void {
  command
    .option('--days <n>', `the complete days the pace is taken from (default ${DEFAULT_BASIS_DAYS})`)
    .option('--metric <name>', 'the usage field holding money (default: discovered)')
    .option('--utc-offset <+HH:MM>', "the gateway's day grid (default: inferred from usage)");
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as Omit<ForecastOptions, 'days'> & { days?: string };
  const loaded = await loadForecast(ctx, { ...options, days: options.days === undefined ? undefined : wholeNumber(options.days, '--days', 1, 365) });
  await emit(ctx, { json: () => forecastJson(loaded), human: () => renderForecast(loaded, ctx) });
}

async function renderForecast(loaded: LoadedForecast, ctx: Context): Promise<string> {
  const [{ renderPanel }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
  ]);
  const style = await styleFor(ctx);
  const rows: [string, string][] = [['Balance', formatAmount(loaded.balance.balance, 'account', { currency: loaded.balance.currency, exact: ctx.options.exact })], ...keyQuotaRows(loaded.keyQuota, ctx.options.exact), ...(await forecastRows(loaded, ctx))];
  const note = `${describeGrid(loaded.series)}; spend from usage field "${loaded.metric ?? 'none (no usage in 92 days)'}"`;
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}
