// The run's display currency, set at the program's top before a command shows anything: from
// --currency / --rate or the profile's settings (currency, rate_source), its rate from
// figures/display-rate.ts, handed to the one rule that shows amounts (output/money.ts).
import type { Context, GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { currencyCode } from '../domain/currency-code.js';

/** --currency and --rate as typed: refused before anything is asked when they cannot be used. */
export function checkDisplayFlags(options: GlobalOptions): void {
  if (options.currency !== undefined && !currencyCode(options.currency)) throw new UsageError(`--currency "${options.currency.slice(0, 20)}" is not an ISO 4217 currency code (USD, EUR, JPY)`);
  if (options.rate !== undefined && options.currency === undefined) throw new UsageError('--rate goes with --currency CODE (the currency the rate is in)');
  if (options.rate !== undefined && !/^\d{1,12}(\.\d{1,12})?$/.test(options.rate.trim())) throw new UsageError(`--rate "${options.rate.slice(0, 20)}" is not a positive decimal (the currency per yuan, e.g. 0.1378)`);
}

/** Sets the run's display currency from --currency / --rate or the profile's settings: every amount a view shows then has its converted text beside it. */
export async function applyDisplayCurrency(ctx: Context): Promise<void> {
  const { showAlsoIn } = await import('../output/money.js');
  showAlsoIn(undefined);
  // The profile's record as the settings already read it (no second read, no second warning about a
  // config file); --demo has none, and its gateway is chosen by the command.
  const record = ctx.options.demo ? undefined : await ctx.settings().then((settings) => settings.record, () => undefined);
  const currency = ctx.options.currency ?? record?.currency;
  // The usual run shows no other currency: nothing more is loaded for it.
  if (currency === undefined) return;
  const [{ displayRate, rateSource }, { displayText }] = await Promise.all([import('../figures/display-rate.js'), import('../domain/display-currency.js')]);
  const source = await rateSource(ctx);
  const display = await displayRate(ctx, { currency, ...(ctx.options.rate !== undefined ? { rate: ctx.options.rate } : {}), source });
  if (display) showAlsoIn(display, (yuan: string) => displayText(yuan, display));
}
