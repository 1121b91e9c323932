// tally statusline: one short line for shell prompts, tmux and editor status bars, from a cache
// no older than --max-age (the fast path in statusline/fast.ts answers that one before the CLI
// loads). A stale cache is printed at once, marked stale, and refreshed in the background; with
// no cache it fetches once, for at most 5 seconds. It never prints an error and always exits 0;
// --check shows what a refresh does, errors and exit codes included.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { TallyError, UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { DEFAULT_FORMAT, DEFAULT_MAX_AGE, OFFLINE_MARKER, type StatuslineIdentity, failedRecently, formatStatusline, readFigures, runRefresh, rememberFailure, statuslinePath } from '../statusline/cache.js';
import { type AgentSession, sessionFromStdin } from '../statusline/session.js';
import { lineFromCache, refreshInBackground, sessionStart, templateFor } from '../statusline/fast.js';
import { runningProxy } from '../settings/proxy-state.js';
import { wholeNumber } from '../flags/flag-values.js';
import { namedSession } from '../flags/session-flags.js';
import { type Fetched, type SessionAsk, fetchFigures, saveFigures } from '../statusline/refresh.js';

/** How long a prompt waits for a statusline without a cache. */
const BLOCKING_SECONDS = 5;

export const flags = declareFlags({
  format: { kind: 'value', value: 'template', help: `placeholders: {balance} {today} {limit} {percent} {runway} {profile} {key_left} {alert} (empty unless today is anomalous) {proxy} (empty unless a tally proxy runs for the profile); with an agent's session JSON on stdin {model} {dir} {session} (default "${DEFAULT_FORMAT}")` },
  maxAge: { kind: 'value', value: 'seconds', help: 'use the cached line while it is younger than this', default: String(DEFAULT_MAX_AGE) },
  check: { kind: 'switch', help: 'fetch now and show what goes wrong, if anything (errors and exit codes as any command)' },
  // What the background refresh runs: fetch and cache the figures, print nothing.
  refresh: { kind: 'switch', help: '', hidden: true },
  // What it also fetches for an agent's session: the key's spend since the session began.
  sessionId: { kind: 'value', value: 'id', help: '', hidden: true },
  sessionStart: { kind: 'value', value: 'seconds', help: '', hidden: true },
});

/** What `tally statusline` was asked: the template, how old a cached line may be, and what runs (a prompt's line, --check, or the background refresh of a session named). */
export interface StatuslineRequest {
  format: string | undefined;
  maxAge: number;
  check: boolean;
  refresh: boolean;
  /** The session a background refresh fetches the spend of (its flags). */
  session: SessionAsk | undefined;
}

export function parse(options: FlagValues<typeof flags>, line: CommandLine): StatuslineRequest {
  // One line of text for a prompt: the flags that shape other output do not apply.
  for (const flag of ['jq', 'json', 'exact', 'wide'] as const) {
    if (line.output[flag]) throw new UsageError(`--${flag} does not apply to statusline, which prints one line for a prompt (for the figures as JSON: \`tally forecast --json\` or \`tally balance --json\`)`);
  }
  const maxAge = wholeNumber(options.maxAge, '--max-age', 0);
  return { format: options.format, maxAge, check: options.check === true, refresh: options.refresh === true, session: namedSession(options.sessionId, options.sessionStart) };
}

export async function run(request: StatuslineRequest, ctx: Context): Promise<void> {
  const { maxAge } = request;
  const stateDir = await ctx.stateDir();
  // An agent's status line hands its session over on stdin (the background refresh has none).
  const session = request.refresh ? undefined : await sessionFromStdin();
  // Its project's .tally.json chooses the profile, as it would in a shell there.
  if (session?.project) ctx.workspaceFrom(session.project);
  const asked = request.session ?? (session?.id === undefined ? undefined : { id: session.id, start: sessionStart(session, ctx.now()) });
  if (request.check) {
    const fetched = await fetchFigures(ctx, asked);
    if (!ctx.options.demo) saveFigures(stateDir, fetched);
    ctx.io.out(`${formatStatusline(fetched.figures, templateFor(request.format, session), false, session && { ...session, ...(fetched.session ? { spend: fetched.session } : {}) }, runningProxy(stateDir, fetched.who))}\n`);
    ctx.note(ctx.options.demo ? 'fetched from the demo gateway (nothing cached)' : `fetched now and cached in ${statuslinePath(stateDir, fetched.who)}`);
    return;
  }
  // From here on a prompt is waiting: whatever goes wrong, it shows nothing rather than an error
  // (or a warning: an unwritable state folder costs a fetch, and --debug says so).
  ctx.quiet();
  try {
    await promptLine(ctx, request, maxAge, stateDir, session, asked);
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    ctx.debug(`statusline: ${error.message}`);
  }
}

async function promptLine(ctx: Context, options: StatuslineRequest, maxAge: number, stateDir: string, session: AgentSession | undefined, asked: SessionAsk | undefined): Promise<void> {
  const settings = await ctx.settings();
  const who: StatuslineIdentity | undefined =
    settings.baseUrl && settings.credential ? { profile: settings.profile, baseUrl: settings.baseUrl, secret: settings.credential.secret } : undefined;
  // Nobody is waiting for a refresh: the next statusline tries again, without waiting on it.
  if (options.refresh) return runRefresh(stateDir, who, () => ctx.now(), 'statusline', async () => saveFigures(stateDir, await fetchFigures(ctx, asked)));
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
  ctx.io.out(`${formatStatusline(fetched.figures, templateFor(options.format, session), false, session && { ...session, ...(fetched.session ? { spend: fetched.session } : {}) }, runningProxy(stateDir, fetched.who))}\n`);
}

