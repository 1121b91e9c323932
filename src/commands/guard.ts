// tally guard: a Claude Code hook command (PreToolUse, UserPromptSubmit). It reads the event's
// JSON on stdin and blocks the agent (exit 2, the reason on stderr, as Claude Code's hooks
// reference says) when a limit is crossed: a stored budget spent, the session's spend past
// --max-session-spend, the key's spend today past --max-daily-used. Otherwise it exits 0 with no
// output. It answers from what was last fetched (the status line's cache, the sessions' file, its
// own cache) while that is younger than --max-age; older, it asks the gateway for at most
// GUARD_WAIT_MS and then goes on with what it has while a refresh finishes in the background. A
// limit it cannot check never blocks (a line on stderr, exit 0) unless --fail-closed. Its own
// mistakes exit 1, never 2: to the agent, 2 would be a block.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { QuietExit, TallyError, UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { parseAmount, parseThreshold } from '../flags/amount-flags.js';
import { wholeNumber } from '../flags/flag-values.js';
import { namedSession } from '../flags/session-flags.js';
import { fetchBalance } from '../api/balance.js';
import { type StatuslineIdentity, failedRecently, forgetFailure, readFigures, runRefresh, rememberFailure } from '../statusline/cache.js';
import { type AgentSession, type SessionSpend, parseSession, readSessions, sessionsPath, withSession } from '../statusline/session.js';
import { readStdin } from '../statusline/stdin.js';
import { refreshInBackground, sessionStart } from '../statusline/fast.js';
import { type BudgetFigure, type GuardCache, type GuardFigures, type GuardLimits, dailyFromStatusline, decide, fresher, readGuardCache, staleParts, writeGuardCache } from '../statusline/guard.js';
import { blockText, unreadText } from '../output/guard.js';
import { writeFileAtomic } from '../settings/files.js';
import { dailyAllowance } from '../figures/key-allowance.js';

/** How long a hook waits on the gateway before it decides with what it has. */
const GUARD_WAIT_MS = 300;

type GuardOptions = FlagValues<typeof flags>;

export const flags = declareFlags({
  budget: { kind: 'variadic', value: 'name', help: 'block when this stored budget (tally budget set) is spent' },
  maxSessionSpend: { kind: 'value', value: 'amount', help: "block when the session's spend (this key's calls since it began) is past this" },
  maxDailyUsed: { kind: 'value', value: 'amount|percent%', help: "block when the key's spend today is past this amount or share of its daily limit" },
  failClosed: { kind: 'switch', help: 'block when a limit cannot be checked (by default the agent goes on, with a line on stderr)' },
  maxAge: { kind: 'value', value: 'seconds', help: 'use figures fetched within this many seconds without asking the gateway', default: '60' },
  // What the background refresh runs: fetch what the limits need and keep it, print nothing.
  refresh: { kind: 'switch', help: '', hidden: true },
  // What it also fetches for an agent's session: the key's spend since the session began.
  sessionId: { kind: 'value', value: 'id', help: '', hidden: true },
  sessionStart: { kind: 'value', value: 'seconds', help: '', hidden: true },
});

/** What a fetch brought back (each part only when asked). */
interface Fetched {
  daily?: GuardFigures['daily'];
  session?: SessionSpend;
  budgets?: BudgetFigure[];
}

/** The hook's limits, how old its figures may be, whether it blocks when it cannot tell, and (for the background refresh) the session it fetches. */
export interface GuardRequest {
  limits: GuardLimits;
  maxAge: number;
  failClosed: boolean;
  /** The background refresh: fetch and keep, print nothing. */
  refresh: boolean;
  /** The refresh's session, named by its flags. */
  session: { id: string; start: number } | undefined;
  /** The flags as typed (a refresh is started with them). */
  options: GuardOptions;
}

export function parse(options: GuardOptions, line: CommandLine): GuardRequest {
  for (const flag of ['jq', 'json', 'csv'] as const) {
    if (line.output[flag]) throw new UsageError(`--${flag} does not apply to guard: a hook answers with its exit code (0 goes on, 2 blocks) and the reason on stderr`);
  }
  const limits: GuardLimits = {
    ...(options.maxDailyUsed === undefined ? {} : { maxDaily: parseThreshold(options.maxDailyUsed, '--max-daily-used') }),
    ...(options.maxSessionSpend === undefined ? {} : { maxSession: parseAmount(options.maxSessionSpend, '--max-session-spend') }),
    budgets: [...new Set(options.budget ?? [])],
  };
  if (!limits.maxDaily && !limits.maxSession && limits.budgets.length === 0) throw new UsageError('name a limit: --budget NAME, --max-session-spend AMOUNT or --max-daily-used SHARE (tally guard --max-session-spend 10)');
  const maxAge = wholeNumber(options.maxAge, '--max-age', 0);
  const session = options.refresh ? namedSession(options.sessionId, options.sessionStart) : undefined;
  return { limits, maxAge, failClosed: options.failClosed === true, refresh: options.refresh === true, session, options };
}

export async function run(request: GuardRequest, ctx: Context): Promise<void> {
  const { limits, maxAge, failClosed, options } = request;
  const stateDir = await ctx.stateDir();
  const now = ctx.now();

  // The event: the session (id, transcript, folder). Input that is not an event leaves the session unknown.
  let session: AgentSession | undefined;
  let ask: { id: string; start: number } | undefined;
  if (request.refresh) {
    ask = request.session;
  } else {
    session = parseSession(await readStdin());
    if (session?.project) ctx.workspaceFrom(session.project);
  }

  const fail = (unread: string[], why?: string, fromGateway = false): never => {
    ctx.io.err(`${unreadText(unread, failClosed, why && ctx.secrets.scrubMessage(why), fromGateway)}\n`);
    throw new QuietExit(failClosed ? 2 : 0);
  };
  let who: StatuslineIdentity;
  try {
    const settings = await ctx.settings();
    if (!settings.baseUrl || !settings.credential) return fail(['every limit'], 'no gateway or credential is set up: tally login');
    who = { profile: settings.profile, baseUrl: settings.baseUrl, secret: settings.credential.secret };
  } catch (error) {
    if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
    return fail(['every limit'], error.message);
  }

  // A budget that is not stored is the hook's mistake (exit 1), not a limit left unchecked. The
  // budgets are read at every event: only the gateway's figures are kept, never a limit.
  if (limits.budgets.length > 0) {
    const { storedBudgets, budgetsHint } = await import('../figures/budgets.js');
    const stored = await storedBudgets(ctx);
    for (const name of limits.budgets) if (!stored.some(([n]) => n === name)) throw new UsageError(`there is no budget "${name}"`, { hint: budgetsHint(stored, name) });
    limits.stored = new Map(stored.filter(([n]) => limits.budgets.includes(n)));
  }
  const cache = readGuardCache(stateDir, who);
  const kept = readSessions(stateDir, who);
  if (session?.id !== undefined) ask = { id: session.id, start: kept.find((s) => s.id === session.id)?.started ?? sessionStart(session, now) };
  const figures: GuardFigures = {
    daily: fresher(dailyFromStatusline(readFigures(stateDir, who)), cache.daily),
    ...(ask ? { session: kept.find((s) => s.id === ask.id) } : {}),
    budgets: new Map(cache.budgets.map((b) => [b.name, b])),
  };
  const stale = staleParts(limits, figures, now, request.refresh ? 0 : maxAge, ask !== undefined);
  const needsFetch = stale.daily || stale.session || stale.budgets.length > 0;

  if (request.refresh) {
    return runRefresh(stateDir, who, () => ctx.now(), 'guard', async () => {
      if (needsFetch) keep(stateDir, who, cache, kept, await fetchParts(ctx, stale, ask));
    });
  }

  const { why, fromGateway } = needsFetch ? await askBriefly(ctx, { stateDir, who, cache, kept, figures, stale, ask, options, maxAge, now }) : { why: undefined, fromGateway: false };

  const decision = decide(limits, figures, ctx.now(), ask !== undefined);
  if (decision.crossed.length > 0) {
    const fetched = decision.crossed.map((c) => Date.parse(c.kind === 'session' ? c.spend.fetched_at : c.figure.fetched_at));
    ctx.io.err(`${ctx.secrets.scrub(blockText(decision.crossed, Math.max(0, Math.round((ctx.now() - Math.min(...fetched)) / 1000))))}\n`);
    throw new QuietExit(2);
  }
  if (decision.unread.length > 0) fail(decision.unread, why, fromGateway);
}

/**
 * The stale figures asked of the gateway for at most GUARD_WAIT_MS, as the file's head says: what
 * comes is kept and decides; what is late is asked again in the background; a gateway that failed
 * moments ago is not waited on again. Why a limit may be left unread, where it may.
 */
async function askBriefly(
  ctx: Context,
  run: { stateDir: string; who: StatuslineIdentity; cache: GuardCache; kept: SessionSpend[]; figures: GuardFigures; stale: ReturnType<typeof staleParts>; ask: { id: string; start: number } | undefined; options: GuardOptions; maxAge: number; now: number },
): Promise<{ why: string | undefined; fromGateway: boolean }> {
  const { stateDir, who } = run;
  if (failedRecently(stateDir, who, run.now, run.maxAge, 'guard')) return { why: 'the gateway did not answer moments ago', fromGateway: false };
  const fetching = fetchParts(ctx, run.stale, run.ask);
  fetching.catch(() => undefined);
  const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), GUARD_WAIT_MS).unref());
  try {
    const got = await Promise.race([fetching, timer]);
    if (got === 'late') {
      refreshLater(stateDir, who, run.options, run.ask, ctx.now());
      return { why: `the gateway did not answer within ${GUARD_WAIT_MS} ms; asked again in the background`, fromGateway: false };
    }
    keep(stateDir, who, run.cache, run.kept, got);
    merge(run.figures, got);
    return { why: undefined, fromGateway: false };
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    rememberFailure(stateDir, who, ctx.now(), 'guard');
    // What the gateway answered is its words, not tally's: quoted as data in the reason the agent reads.
    return { why: (error as Error).message, fromGateway: error instanceof TallyError && ['service', 'auth', 'rate_limit'].includes(error.kind) };
  }
}

/** Fetches what is stale: the balance (today's spend and the currency), the session's spend from the log, the budgets. */
async function fetchParts(ctx: Context, stale: { daily: boolean; session: boolean; budgets: string[] }, ask: { id: string; start: number } | undefined): Promise<Fetched> {
  const client = await ctx.client();
  const at = () => new Date(ctx.now()).toISOString();
  const balance = stale.daily || stale.session ? fetchBalance(client) : undefined;
  const spending = stale.session && ask ? import('../figures/call-log.js').then(({ spendSince }) => spendSince(ctx, ask.start)) : undefined;
  const budgets = stale.budgets.length
    ? Promise.all([import('../figures/budgets.js'), import('../domain/budget.js')]).then(([{ loadBudgets, budgetJson, budgetAsSet }, { budgetMeasure }]) =>
        loadBudgets(ctx, stale.budgets).then((loaded) => budgetJson(loaded).budgets.map((json, i) => ({ json, measure: budgetMeasure(budgetAsSet(loaded.budgets[i]!)) }))),
      )
    : undefined;
  for (const p of [balance, spending, budgets]) p?.catch(() => undefined);
  const got: Fetched = {};
  if (balance) {
    const b = await balance;
    const daily = dailyAllowance(b.apiKey);
    got.daily = daily === undefined ? null : daily.used === undefined ? undefined : { used: daily.used.toFixed(), limit: daily.limit?.toFixed() ?? null, currency: b.currency, fetched_at: at() };
    if (spending && ask) {
      const s = await spending;
      got.session = { id: ask.id, started: ask.start, spent: s.spent.toFixed(), currency: b.currency, complete: s.complete, fetched_at: at() };
    }
  }
  if (budgets) {
    got.budgets = (await budgets).map(({ json: j, measure }) => ({
      name: j.name,
      amount: j.amount,
      currency: j.currency,
      period: j.period,
      scope: j.scope,
      ...(j.models ? { models: j.models } : {}),
      spent: j.spent,
      percent: j.percent,
      state: j.state,
      ...(j.not_measured ? { not_measured: j.not_measured } : {}),
      end_iso: j.end_iso,
      fetched_at: at(),
      measure,
    }));
  }
  return got;
}

function merge(figures: GuardFigures, got: Fetched): void {
  if (got.daily !== undefined) figures.daily = got.daily;
  if (got.session) figures.session = got.session;
  for (const b of got.budgets ?? []) figures.budgets.set(b.name, b);
}

/** Keeps what was fetched: the guard's cache, and the session's spend beside the status line's. */
function keep(stateDir: string, who: StatuslineIdentity, cache: GuardCache, kept: SessionSpend[], got: Fetched): void {
  try {
    const budgets = new Map(cache.budgets.map((b) => [b.name, b]));
    for (const b of got.budgets ?? []) budgets.set(b.name, b);
    writeGuardCache(stateDir, who, { ...cache, ...(got.daily !== undefined ? { daily: got.daily } : {}), budgets: [...budgets.values()].slice(-32) });
    if (got.session) writeFileAtomic(sessionsPath(stateDir, who), [withSession(who, kept, got.session)]);
    forgetFailure(stateDir, who, 'guard');
  } catch {
    // An unwritable cache costs the next hook a fetch, nothing more.
  }
}

/** `tally guard --refresh` with the same limits and session, in the background. */
function refreshLater(stateDir: string, who: StatuslineIdentity, options: GuardOptions, ask: { id: string; start: number } | undefined, now: number): void {
  const flags = [
    ...(options.budget ?? []).flatMap((name) => ['--budget', name]),
    ...(options.maxSessionSpend === undefined ? [] : ['--max-session-spend', options.maxSessionSpend]),
    ...(options.maxDailyUsed === undefined ? [] : ['--max-daily-used', options.maxDailyUsed]),
    ...(ask ? ['--session-id', ask.id, '--session-start', String(ask.start)] : []),
  ];
  refreshInBackground(stateDir, who, now, flags, 'guard');
}
