// tally statusline: one short line for shell prompts, tmux and editor status bars, from a cache
// no older than --max-age (the fast path in statusline/fast.ts answers that one before the CLI
// loads). A stale cache is printed at once, marked stale, and refreshed in the background; with
// no cache it fetches once, for at most 5 seconds. It never prints an error and always exits 0;
// --check shows what a refresh does, errors and exit codes included.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { TallyError } from '../errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../settings/files.js';
import { DEFAULT_FORMAT, DEFAULT_MAX_AGE, type StatuslineFigures, formatStatusline, readFigures, releaseRefreshLock, statuslinePath } from '../statusline/cache.js';
import { refreshInBackground } from '../statusline/fast.js';
import { wholeNumber } from './flag-values.js';
import { loadForecast } from './forecast.js';
import { dirname } from 'node:path';

/** How long a prompt waits for a statusline without a cache. */
const BLOCKING_SECONDS = 5;

interface StatuslineOptions {
  format: string;
  maxAge: string;
  check?: boolean;
  refresh?: boolean;
}

export function configure(command: Command): void {
  command
    .option('--format <template>', 'placeholders: {balance} {today} {limit} {percent} {runway} {profile}', DEFAULT_FORMAT)
    .option('--max-age <seconds>', 'use the cached line while it is younger than this', String(DEFAULT_MAX_AGE))
    .option('--check', 'fetch now and show what goes wrong, if anything (errors and exit codes as any command)')
    // What the background refresh runs: fetch and cache the figures, print nothing.
    .addOption(new Option('--refresh').hideHelp());
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as StatuslineOptions;
  const maxAge = wholeNumber(options.maxAge, '--max-age', 0);
  const settings = await ctx.settings();
  const stateDir = await ctx.stateDir();
  const profile = settings.profile;
  if (options.check) {
    const figures = await fetchFigures(ctx);
    if (!ctx.options.demo) saveFigures(stateDir, figures);
    ctx.io.out(`${formatStatusline(figures, options.format, false)}\n`);
    ctx.note(ctx.options.demo ? 'fetched from the demo gateway (nothing cached)' : `fetched now and cached in ${statuslinePath(stateDir, profile)}`);
    return;
  }
  if (options.refresh) {
    try {
      saveFigures(stateDir, await fetchFigures(ctx));
    } catch {
      // Nobody is waiting for this one: the next statusline tries again.
    } finally {
      releaseRefreshLock(stateDir, profile);
    }
    return;
  }
  const cached = ctx.options.demo ? undefined : readFigures(stateDir, profile);
  const usable = cached && (!settings.baseUrl || new URL(cached.base_url).href === settings.baseUrl.href) ? cached : undefined;
  if (usable) {
    const age = ctx.now() - Date.parse(usable.fetched_at);
    const fresh = age >= -60_000 && age <= maxAge * 1000;
    ctx.io.out(`${formatStatusline(usable, options.format, !fresh)}\n`);
    if (!fresh) refreshInBackground(stateDir, profile, ctx.now());
    return;
  }
  // No cache: one fetch, briefly; on any failure, nothing at all (a prompt shows no errors).
  ctx.options.timeout = Math.min(ctx.options.timeout, BLOCKING_SECONDS);
  ctx.renewDeadline();
  try {
    const figures = await fetchFigures(ctx);
    if (!ctx.options.demo) {
      try {
        saveFigures(stateDir, figures);
      } catch {
        // An unwritable cache costs the next prompt a fetch, nothing more.
      }
    }
    ctx.io.out(`${formatStatusline(figures, options.format, false)}\n`);
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    ctx.debug(`statusline: ${error.message}`);
  }
}

/** The balance, today against the limit, and the runway: two requests (balance, usage). */
async function fetchFigures(ctx: Context): Promise<StatuslineFigures> {
  const [settings, loaded] = await Promise.all([ctx.settings(), loadForecast(ctx, {})]);
  const key = loaded.balance.apiKey;
  return {
    base_url: settings.baseUrl!.href,
    profile: settings.profile,
    fetched_at: new Date(ctx.now()).toISOString(),
    currency: loaded.balance.currency,
    balance: loaded.balance.balance.toFixed(),
    today: key?.dailyUsed?.toFixed() ?? null,
    limit: key?.dailyLimit?.toFixed() ?? null,
    runway_days: loaded.forecast.runwayDays,
  };
}

function saveFigures(stateDir: string, figures: StatuslineFigures): void {
  const path = statuslinePath(stateDir, figures.profile);
  ensurePrivateDir(dirname(path));
  writeFileAtomic(path, [JSON.stringify(figures)]);
}

