// tally statusline: one short line for shell prompts, tmux and editor status bars, from a cache
// no older than --max-age (the fast path in statusline/fast.ts answers that one before the CLI
// loads). A stale cache is printed at once, marked stale, and refreshed in the background; with
// no cache it fetches once, for at most 5 seconds. It never prints an error and always exits 0;
// --check shows what a refresh does, errors and exit codes included.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { TallyError, UsageError } from '../errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../settings/files.js';
import { DEFAULT_FORMAT, DEFAULT_MAX_AGE, OFFLINE_MARKER, type StatuslineFigures, type StatuslineIdentity, failedRecently, forgetFailure, formatStatusline, readFigures, releaseRefreshLock, rememberFailure, statuslinePath } from '../statusline/cache.js';
import { type AgentSession, type SessionSpend, readSessions, sessionFromStdin, sessionsPath, withSession } from '../statusline/session.js';
import { credentialId } from '../settings/cache-key.js';
import { lineFromCache, refreshInBackground, sessionArgs, templateFor } from '../statusline/fast.js';
import { wholeNumber } from '../cli/flag-values.js';
import { fetchBalance } from '../api/balance.js';
import { dirname } from 'node:path';
import { type LoadedForecast, loadForecast } from '../figures/forecast.js';
import type { CallsSince } from '../figures/call-log.js';

/** How long a prompt waits for a statusline without a cache. */
const BLOCKING_SECONDS = 5;

interface StatuslineOptions {
  format?: string;
  maxAge: string;
  check?: boolean;
  refresh?: boolean;
  sessionId?: string;
  sessionStart?: string;
}

export function configure(command: Command): void {
  command
    .option('--format <template>', `placeholders: {balance} {today} {limit} {percent} {runway} {profile} {key_left} {alert} (empty unless today is anomalous); with an agent's session JSON on stdin {model} {dir} {session} (default "${DEFAULT_FORMAT}")`)
    .option('--max-age <seconds>', 'use the cached line while it is younger than this', String(DEFAULT_MAX_AGE))
    .option('--check', 'fetch now and show what goes wrong, if anything (errors and exit codes as any command)')
    // What the background refresh runs: fetch and cache the figures, print nothing.
    .addOption(new Option('--refresh').hideHelp())
    // What it also fetches for an agent's session: the key's spend since the session began.
    .addOption(new Option('--session-id <id>').hideHelp())
    .addOption(new Option('--session-start <seconds>').hideHelp());
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as StatuslineOptions;
  // One line of text for a prompt: the flags that shape other output do not apply.
  for (const flag of ['jq', 'json', 'exact', 'wide'] as const) {
    if (ctx.options[flag]) throw new UsageError(`--${flag} does not apply to statusline, which prints one line for a prompt (for the figures as JSON: \`tally forecast --json\` or \`tally balance --json\`)`);
  }
  const maxAge = wholeNumber(options.maxAge, '--max-age', 0);
  const stateDir = await ctx.stateDir();
  // An agent's status line hands its session over on stdin (the background refresh has none).
  const session = options.refresh ? undefined : await sessionFromStdin();
  const asked = sessionAsked(options, session, ctx.now());
  if (options.check) {
    const fetched = await fetchFigures(ctx, asked);
    if (!ctx.options.demo) saveFigures(stateDir, fetched);
    ctx.io.out(`${formatStatusline(fetched.figures, templateFor(options.format, session), false, session && { ...session, ...(fetched.session ? { spend: fetched.session } : {}) })}\n`);
    ctx.note(ctx.options.demo ? 'fetched from the demo gateway (nothing cached)' : `fetched now and cached in ${statuslinePath(stateDir, fetched.who)}`);
    return;
  }
  // From here on a prompt is waiting: whatever goes wrong, it shows nothing rather than an error
  // (or a warning: an unwritable state folder costs a fetch, and --debug says so).
  ctx.quiet();
  try {
    await promptLine(ctx, options, maxAge, stateDir, session, asked);
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    ctx.debug(`statusline: ${error.message}`);
  }
}

/** The session whose spend to fetch: named by a refresh's flags, or on stdin (its start as its transcript says). */
function sessionAsked(options: StatuslineOptions, session: AgentSession | undefined, now: number): SessionAsk | undefined {
  if (options.sessionId !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(options.sessionId)) throw new UsageError('--session-id is not a session id');
    return { id: options.sessionId, start: wholeNumber(options.sessionStart, '--session-start', 0) };
  }
  if (session?.id === undefined) return undefined;
  const [, id, , start] = sessionArgs(session, undefined, now);
  return { id: id!, start: Number(start) };
}

interface SessionAsk {
  id: string;
  /** Unix seconds. */
  start: number;
}

async function promptLine(ctx: Context, options: StatuslineOptions, maxAge: number, stateDir: string, session: AgentSession | undefined, asked: SessionAsk | undefined): Promise<void> {
  const settings = await ctx.settings();
  const who: StatuslineIdentity | undefined =
    settings.baseUrl && settings.credential ? { profile: settings.profile, baseUrl: settings.baseUrl, secret: settings.credential.secret } : undefined;
  if (options.refresh) {
    try {
      saveFigures(stateDir, await fetchFigures(ctx, asked));
    } catch {
      // Nobody is waiting for this one: the next statusline tries again, without waiting on it.
      if (who) rememberFailure(stateDir, who, ctx.now());
    } finally {
      if (who) releaseRefreshLock(stateDir, who);
    }
    return;
  }
  const cached = ctx.options.demo || !who ? undefined : readFigures(stateDir, who);
  if (cached && who) {
    ctx.io.out(lineFromCache(stateDir, who, cached, { format: options.format, maxAge, now: ctx.now(), session }));
    return;
  }
  // No cache, and the gateway failed or hung within --max-age: never wait on it again in the
  // foreground; say so in a word and refresh in the background.
  if (who && !ctx.options.demo && failedRecently(stateDir, who, ctx.now(), maxAge)) {
    ctx.io.out(`${OFFLINE_MARKER}\n`);
    refreshInBackground(stateDir, who, ctx.now());
    return;
  }
  // No cache: one fetch, briefly; a failure is remembered and said in a word (a prompt shows no errors).
  ctx.options.timeout = Math.min(ctx.options.timeout, BLOCKING_SECONDS);
  ctx.renewDeadline();
  let fetched: Fetched;
  try {
    fetched = await fetchFigures(ctx, asked);
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted' || !who) throw error;
    if (!ctx.options.demo) rememberFailure(stateDir, who, ctx.now());
    ctx.debug(`statusline: ${error.message}`);
    ctx.io.out(`${OFFLINE_MARKER}\n`);
    return;
  }
  if (!ctx.options.demo) {
    try {
      saveFigures(stateDir, fetched);
    } catch {
      // An unwritable cache costs the next prompt a fetch, nothing more.
    }
  }
  ctx.io.out(`${formatStatusline(fetched.figures, templateFor(options.format, session), false, session && { ...session, ...(fetched.session ? { spend: fetched.session } : {}) })}\n`);
}

interface Fetched {
  figures: StatuslineFigures;
  who: StatuslineIdentity;
  /** The session's spend, when one was asked and the log could be read. */
  session?: SessionSpend;
}

/** The balance, today against the limit, and the runway (two requests: balance, usage); with a session, the key's spend since it began (its per-call log, alongside). */
async function fetchFigures(ctx: Context, asked?: SessionAsk): Promise<Fetched> {
  const [settings, client] = await Promise.all([ctx.settings(), ctx.client()]);
  // A device token sees the balance only: the other placeholders show —.
  const deviceToken = settings.credential?.kind === 'device-token';
  const spending = asked && !deviceToken ? sessionSpend(ctx, asked) : undefined;
  // Asked alongside; a log that cannot be read leaves {session} as it was, never the line.
  spending?.catch(() => undefined);
  const loaded = deviceToken ? { balance: await fetchBalance(client), forecast: { runwayDays: null }, keyQuota: undefined } : await loadForecast(ctx, {});
  const quota = loaded.keyQuota?.state === 'quota' ? loaded.keyQuota.quota : undefined;
  const key = loaded.balance.apiKey;
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
      today: key?.dailyUsed?.toFixed() ?? null,
      limit: key?.dailyLimit?.toFixed() ?? null,
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

function saveFigures(stateDir: string, { figures, who, session }: Fetched): void {
  const path = statuslinePath(stateDir, who);
  ensurePrivateDir(dirname(path), { own: true });
  writeFileAtomic(path, [JSON.stringify(figures)]);
  if (session) writeFileAtomic(sessionsPath(stateDir, who), [withSession(who, readSessions(stateDir, who), session)]);
  forgetFailure(stateDir, who);
}

