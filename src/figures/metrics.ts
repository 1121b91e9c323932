// What `tally metrics` exports for a profile: the forecast (balance, the key's limit and quota,
// the day series, the runway), the budgets, and the key's spend today per model (the top ten and
// the rest as other); a profile that fails is only its name (tally_up 0).
import type { Context } from '../context.js';
import { TallyError } from '../errors.js';
import { bucketStart } from '../domain/window.js';
import { loadBudgets, storedBudgets } from './budgets.js';
import { type LoadedForecast, loadForecast } from './forecast.js';
import { bucketMoney } from './usage-series.js';

export interface Figures {
  profile: string;
  /** When they were read (Unix seconds): "today" is the grid day that holds it. */
  now?: number;
  loaded?: LoadedForecast;
  /** A profile that answers in part (a device token reads the balance, not usage): what it read. */
  balanceOnly?: import('../api/balance.js').Balance;
  budgets?: Awaited<ReturnType<typeof loadBudgets>>;
  /** The account's spend today (the usage series' money on the grid day that holds `now`), as the gateway wrote it. */
  spendToday?: string;
  /** The key's spend today per model: the top MODEL_SERIES, the rest added up as `other` (bounded series). */
  models?: { model: string; spend: string }[];
  /** A `tally proxy` running for this profile and key: its live figures. */
  proxy?: import('../settings/proxy-state.js').ProxyFigures;
}

/** Models with a series of their own; the rest are one series, `other`. */
const MODEL_SERIES = 10;

/** One profile's figures (a failure leaves only the profile: tally_up 0). */
export async function figuresOf(ctx: Context, profile: string): Promise<Figures> {
  try {
    // Both are awaited together: a profile whose settings fail must not leave the other rejected unheard.
    const loaded = loadForecast(ctx, {});
    const stored = storedBudgets(ctx).then((list) => (list.length > 0 ? loadBudgets(ctx, [], loaded) : undefined));
    const [forecast, budgets] = await Promise.all([loaded, stored]);
    // Exported as what could be read: a quota that could not be read leaves the runway unknown too (never a value for an alert rule).
    if (forecast.allowance.quota.state === 'unknown') ctx.warn(`profile "${profile}": ${forecast.allowance.quota.reason}; tally_key_remaining and tally_runway_seconds are left out`);
    const now = Math.floor(ctx.now() / 1000);
    const today = forecast.series.slots.indexOf(bucketStart(now, 'day', forecast.series.dayGrid.offset));
    const spendToday = today < 0 ? undefined : bucketMoney([forecast.series.buckets[today]!], forecast.metric)[0];
    return { profile, loaded: forecast, budgets, now, spendToday, models: await modelsToday(ctx, forecast, now), ...(await proxyOf(ctx)) };
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    // A device token reads the balance and nothing else: export what it can read, and say what not.
    if (error instanceof TallyError && error.kind === 'auth' && (await ctx.settings()).credential?.kind === 'device-token') {
      try {
        const { balanceOf } = await import('./balance.js');
        const balanceOnly = await balanceOf(ctx);
        ctx.warn(`profile "${profile}" is signed in with a device token: only its balance and lifetime spend are exported (usage, runway and budgets need an API key)`);
        return { profile, balanceOnly };
      } catch (inner) {
        if (inner instanceof TallyError && inner.kind === 'interrupted') throw inner;
      }
    }
    ctx.debug(`metrics: profile "${profile}": ${(error as Error).message}`);
    return { profile };
  }
}

/** The figures of a proxy running for this profile and key, where one runs. */
async function proxyOf(ctx: Context): Promise<Pick<Figures, 'proxy'>> {
  const [settings, client] = await Promise.all([ctx.settings(), ctx.client()]);
  if (!settings.credential) return {};
  const { runningProxy } = await import('../settings/proxy-state.js');
  const proxy = runningProxy(await ctx.stateDir(), { profile: settings.profile, baseUrl: client.baseUrl, secret: settings.credential.secret });
  return proxy ? { proxy } : {};
}

/** The key's spend today per model (its grid day), bounded to the top models and `other`; none when it cannot be read. */
async function modelsToday(ctx: Context, loaded: LoadedForecast, now: number): Promise<Figures['models']> {
  if (loaded.balance.apiKey === null) return undefined;
  try {
    const [{ fetchAllPages, DEFAULT_MAX_PAGES }, { spendByModel }, { Decimal }] = await Promise.all([import('./records.js'), import('./usage-by-model.js'), import('../domain/money.js')]);
    const start = bucketStart(now, 'day', loaded.series.dayGrid.offset);
    const found = await fetchAllPages(ctx, await ctx.client(), '/v1/open/usage/models', { start: String(start), end: String(start + 86_400) }, { all: true, maxPages: DEFAULT_MAX_PAGES });
    const ranked = spendByModel(found.records)?.ranked.map(({ model, spend }) => [model, spend] as const);
    if (!ranked) return [];
    const top = ranked.slice(0, MODEL_SERIES).map(([model, value]) => ({ model, spend: value.toFixed() }));
    const rest = ranked.slice(MODEL_SERIES);
    return rest.length ? [...top, { model: 'other', spend: rest.reduce((a, [, v]) => a.plus(v), new Decimal(0)).toFixed() }] : top;
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    ctx.debug(`metrics: spend per model today: ${(error as Error).message}`);
    return undefined;
  }
}

