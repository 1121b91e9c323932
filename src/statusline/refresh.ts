// What a status line shows, fetched and kept: the balance, today against the key's limit, the
// runway, the key's own quota, today's spike (in a few words), and, with an agent's session, what
// the key spent since it began (from the per-call log, alongside). Saved to the statusline's
// cache (and the session's to its own file) for the fast path to answer from.
import type { Context } from '../context.js';
import { TallyError } from '../errors.js';
import { fetchBalance } from '../api/balance.js';
import { dirname } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../settings/files.js';
import { credentialId } from '../settings/cache-key.js';
import { type LoadedForecast, loadForecast } from '../figures/forecast.js';
import type { CallsSince } from '../figures/call-log.js';
import { type StatuslineFigures, type StatuslineIdentity, forgetFailure, statuslinePath } from './cache.js';
import { type SessionSpend, readSessions, sessionsPath, withSession } from './session.js';

export interface SessionAsk {
  id: string;
  /** Unix seconds. */
  start: number;
}

export interface Fetched {
  figures: StatuslineFigures;
  who: StatuslineIdentity;
  /** The session's spend, when one was asked and the log could be read. */
  session?: SessionSpend;
}

/** The balance, today against the limit, and the runway (two requests: balance, usage); with a session, the key's spend since it began (its per-call log, alongside). */
export async function fetchFigures(ctx: Context, asked?: SessionAsk): Promise<Fetched> {
  const [settings, client] = await Promise.all([ctx.settings(), ctx.client()]);
  // A device token sees the balance only: the other placeholders show —.
  const deviceToken = settings.credential?.kind === 'device-token';
  const spending = asked && !deviceToken ? sessionSpend(ctx, asked) : undefined;
  // Asked alongside; a log that cannot be read leaves {session} as it was, never the line.
  spending?.catch(() => undefined);
  const loaded = deviceToken ? { balance: await fetchBalance(client), forecast: { runwayDays: null }, allowance: undefined } : await loadForecast(ctx, {});
  const quota = loaded.allowance?.quota.state === 'quota' ? loaded.allowance.quota.quota : undefined;
  const daily = loaded.allowance?.daily;
  // The credential the requests carried (a device token may have been renewed on the way).
  const who = { profile: settings.profile, baseUrl: client.baseUrl, secret: client.credential?.secret ?? '' };
  return {
    who,
    figures: {
      base_url: client.baseUrl.href,
      profile: settings.profile,
      credential_id: credentialId(who.secret),
      fetched_at: new Date(ctx.now()).toISOString(),
      currency: loaded.balance.currency,
      balance: loaded.balance.balance.toFixed(),
      today: daily?.used?.toFixed() ?? null,
      limit: daily?.limit?.toFixed() ?? null,
      runway_days: loaded.forecast.runwayDays === null ? null : String(loaded.forecast.runwayDays),
      key_left: quota ? quota.remaining.toFixed() : null,
      key_unit: quota?.currency ?? null,
      alert: 'series' in loaded ? await alertOf(loaded, ctx) : null,
    },
    ...(spending && asked ? await sessionOf(ctx, asked, spending, loaded.balance.currency) : {}),
  };
}

/** The session's spend as the cache keeps it; nothing when the log could not be read (said with --debug). */
async function sessionOf(ctx: Context, asked: SessionAsk, spending: Promise<CallsSince>, currency: string): Promise<{ session?: SessionSpend }> {
  try {
    const s = await spending;
    return { session: { id: asked.id, started: asked.start, spent: s.spent.toFixed(), currency, complete: s.complete, fetched_at: new Date(ctx.now()).toISOString() } };
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    ctx.debug(`statusline: the session's spend: ${(error as Error).message}`);
    return {};
  }
}

async function sessionSpend(ctx: Context, asked: SessionAsk): Promise<CallsSince> {
  const { spendSince } = await import('../figures/call-log.js');
  return spendSince(ctx, asked.start);
}

/** A few words when today is anomalous (the default rule on the forecast's days), else null: `{alert}`. */
async function alertOf(loaded: LoadedForecast, ctx: Context): Promise<string | null> {
  const [{ spikeToday }, { formatAmount }] = await Promise.all([import('../figures/anomalies.js'), import('../output/money.js')]);
  const spike = spikeToday(loaded.series, loaded.metric, Math.floor(ctx.now() / 1000));
  if (!spike) return null;
  return `spike ${formatAmount(spike.amount, 'account', { currency: loaded.balance.currency })} today${spike.ratio ? ` (${spike.ratio.toDecimalPlaces(0, 1).toFixed()}×)` : ''}`;
}

export function saveFigures(stateDir: string, { figures, who, session }: Fetched): void {
  const path = statuslinePath(stateDir, who);
  ensurePrivateDir(dirname(path), { own: true });
  writeFileAtomic(path, [JSON.stringify(figures)]);
  if (session) writeFileAtomic(sessionsPath(stateDir, who), [withSession(who, readSessions(stateDir, who), session)]);
  forgetFailure(stateDir, who);
}
