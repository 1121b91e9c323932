// `tally guard` from its caches, before the command-line machinery loads: a hook runs before
// every tool call an agent makes, so a decision the kept figures can make is made in the time it
// takes to read a few small files. The limits are read as the full command reads them (the hook's
// flags, the stored budgets); the figures are the guard's and the status line's caches, by the
// guard's one rule (statusline/guard.ts). Anything this path does not settle (another flag, a
// figure missing or older than --max-age, a limit it cannot check, a stored budget it cannot
// read) goes to the full command, which fetches, refreshes and says why.
import { readStateFile } from '../settings/read-file.js';
import { stateDirFor } from '../settings/state-dir.js';
import { readFigures } from './cache.js';
import { readSessions, sessionFromStdin } from './session.js';
import { type GuardFigures, type GuardLimits, dailyFromStatusline, decide, fresher, readGuardCache, staleParts } from './guard.js';
import { whoRuns } from './fast.js';
import { type StoredBudget, checkBudget } from '../domain/budget.js';
import { parseAmount, parseThreshold } from '../flags/amount-flags.js';
import { blockText } from '../output/guard.js';

/** The flags the hook's command may hold here: anything else is the full command's. */
interface HookFlags {
  budgets: string[];
  maxSession?: string;
  maxDaily?: string;
  maxAge: number;
  profile?: string;
}

/**
 * The hook's answer from kept figures: 0 (go on, nothing written) or 2 (blocked, the reason
 * written with `err`); undefined when the full command must answer.
 */
export async function guardFromCache(argv: string[], env: NodeJS.ProcessEnv, err: (text: string) => void, now = Date.now()): Promise<0 | 2 | undefined> {
  const flags = hookFlags(argv);
  if (!flags) return undefined;
  let limits: GuardLimits;
  try {
    limits = {
      ...(flags.maxDaily === undefined ? {} : { maxDaily: parseThreshold(flags.maxDaily, '--max-daily-used') }),
      ...(flags.maxSession === undefined ? {} : { maxSession: parseAmount(flags.maxSession, '--max-session-spend') }),
      budgets: [...new Set(flags.budgets)],
    };
  } catch {
    return undefined;
  }
  if (!limits.maxDaily && !limits.maxSession && limits.budgets.length === 0) return undefined;
  const stateDir = await stateDirFor(env);
  const session = await sessionFromStdin();
  const who = whoRuns(env, stateDir, flags.profile ?? (env.TALLY_PROFILE || undefined), session);
  if (!who) return undefined;
  const profile = who.profile;
  // The budgets as stored now: a limit raised or lowered takes effect at this event.
  if (limits.budgets.length > 0) {
    const stored = storedBudgets(stateDir, profile, limits.budgets);
    if (!stored) return undefined;
    limits.stored = stored;
  }
  const cache = readGuardCache(stateDir, who);
  const kept = readSessions(stateDir, who).find((s) => s.id === session?.id);
  const sessionKnown = session?.id !== undefined;
  const figures: GuardFigures = {
    daily: fresher(dailyFromStatusline(readFigures(stateDir, who)), cache.daily),
    ...(sessionKnown && kept ? { session: kept } : {}),
    budgets: new Map(cache.budgets.map((b) => [b.name, b])),
  };
  const stale = staleParts(limits, figures, now, flags.maxAge, sessionKnown);
  if (stale.daily || stale.session || stale.budgets.length > 0) return undefined;
  const decision = decide(limits, figures, now, sessionKnown);
  if (decision.crossed.length > 0) {
    const fetched = decision.crossed.map((c) => Date.parse(c.kind === 'session' ? c.spend.fetched_at : c.figure.fetched_at));
    err(`${blockText(decision.crossed, Math.max(0, Math.round((now - Math.min(...fetched)) / 1000)))}\n`);
    return 2;
  }
  // A limit it cannot check is said by the full command (with why, and --fail-closed's block).
  return decision.unread.length > 0 ? undefined : 0;
}

/** The hook's flags, when they are all ones this path knows (their values checked later, as the full command checks them). */
function hookFlags(argv: string[]): HookFlags | undefined {
  const flags: HookFlags = { budgets: [], maxAge: 60 };
  for (let i = 1; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--budget') {
      // Variadic, as the full command reads it: every word up to the next flag.
      const names = inline === undefined ? [] : [inline];
      while (inline === undefined && i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) names.push(argv[++i]!);
      if (names.length === 0) return undefined;
      flags.budgets.push(...names);
      continue;
    }
    // Without --fail-closed a limit it cannot check lets the agent go on; either way the full command says so: here it changes nothing.
    if (flag === '--fail-closed' && inline === undefined) continue;
    const value = inline ?? argv[++i];
    if (value === undefined) return undefined;
    if (flag === '--max-session-spend') flags.maxSession = value;
    else if (flag === '--max-daily-used') flags.maxDaily = value;
    else if (flag === '--max-age' && /^\d{1,9}$/.test(value)) flags.maxAge = Number(value);
    else if (flag === '--profile') flags.profile = value;
    else return undefined;
  }
  return flags;
}

/** The named budgets of a profile as config.json stores them, each checked as `budget set` checks it; undefined when one is missing or cannot be read. */
function storedBudgets(stateDir: string, profile: string, names: string[]): Map<string, StoredBudget> | undefined {
  try {
    const profiles = (JSON.parse(readStateFile(`${stateDir}/config.json`, 4 * 1024 * 1024).toString('utf8')) as { profiles?: Record<string, { budgets?: Record<string, unknown> }> }).profiles;
    const budgets = profiles && Object.hasOwn(profiles, profile) ? profiles[profile]?.budgets : undefined;
    if (!budgets) return undefined;
    const stored = new Map<string, StoredBudget>();
    for (const name of names) {
      if (!Object.hasOwn(budgets, name)) return undefined;
      stored.set(name, checkBudget(name, budgets[name]));
    }
    return stored;
  } catch {
    return undefined;
  }
}
