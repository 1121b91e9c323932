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
  const [{ showAlsoIn }, { displayRate }, { displayText }] = await Promise.all([import('../output/money.js'), import('../figures/display-rate.js'), import('../domain/display-currency.js')]);
  showAlsoIn(undefined);
  let currency = ctx.options.currency;
  let source: string | undefined;
  if (currency === undefined || ctx.options.rate === undefined) {
    // The profile's settings, where one is stored (a run without a profile has none).
    // The profile's record as the settings already read it (no second read, no second warning about a config file).
    // (--demo has no stored settings, and its gateway is chosen by the command: nothing is read here.)
    const record = ctx.options.demo ? undefined : await ctx.settings().then((settings) => settings.record, () => undefined);
    currency ??= record?.currency;
    source = record?.rate_source;
  }
  if (ctx.options.rate !== undefined && currency === undefined) throw new UsageError('--rate goes with --currency CODE (the currency the rate is in)');
  if (currency === undefined) return;
  const { DEFAULT_RATE_SOURCE } = await import('../settings/profile-rules.js');
  const display = await displayRate(ctx, { currency, ...(ctx.options.rate !== undefined ? { rate: ctx.options.rate } : {}), source: source ?? ctx.env.TALLY_RATE_SOURCE ?? DEFAULT_RATE_SOURCE });
  if (!display) return;
  const [{ converted }, { useConversion }] = await Promise.all([import('../domain/display-currency.js'), import('../output/display.js')]);
  showAlsoIn(display, (yuan: string) => displayText(yuan, display));
  useConversion((yuan, d) => converted(yuan, d));
}
