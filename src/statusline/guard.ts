// What `tally guard` decides from: the key's spend today against its daily limit, the agent
// session's spend and the named budgets, each as last fetched (the status line's cache, the
// sessions' file, the guard's own cache), and the rule that turns them into a block or a pass.
// Pure but for the cache file it reads and writes; the command (commands/guard.ts) fetches.
import { dirname } from 'node:path';
import { Decimal, type Threshold, oneDecimal } from '../domain/money.js';
import { isKeptDecimal } from '../domain/decimal-text.js';
import { readOwnStateFile } from '../settings/read-file.js';
import { credentialId } from '../settings/cache-key.js';
import { ensurePrivateDir, writeFileAtomic } from '../settings/files.js';
import { type StatuslineFigures, type StatuslineIdentity, isFresh, statuslinePath } from './cache.js';
import type { SessionSpend } from './session.js';
import { dailyAllowance } from '../figures/key-allowance.js';
import { type StoredBudget, budgetMeasure } from '../domain/budget.js';

/** The key's spend today and its daily limit (null: none), as a balance said them. */
export interface DailyFigure {
  used: string;
  limit: string | null;
  currency: string;
  /** ISO 8601. */
  fetched_at: string;
}

/** A budget as last measured: where it stands, or why it cannot be told. */
export interface BudgetFigure {
  name: string;
  amount: string;
  currency: string;
  period: string;
  scope: 'key' | 'account';
  models?: string[];
  /** null: not measured (`not_measured` says why). */
  spent: string | null;
  percent: string | null;
  state: string;
  not_measured?: string;
  /** When the period ends (ISO 8601, the budget's zone). */
  end_iso: string;
  fetched_at: string;
  /** What was measured (budgetMeasure): the figure stands only for a budget that still measures the same. */
  measure?: string;
}

export interface GuardCache {
  base_url: string;
  credential_id: string;
  daily?: DailyFigure | null;
  budgets: BudgetFigure[];
}

export interface GuardLimits {
  maxDaily?: Threshold;
  maxSession?: Decimal;
  budgets: string[];
  /** The named budgets as stored now (read at every event: a limit raised, lowered or changed takes effect at once). */
  stored?: Map<string, StoredBudget>;
}

/** What the guard knows, each figure with when it was fetched. */
export interface GuardFigures {
  /** undefined: not known; null: the credential has no key of its own (a device token). */
  daily?: DailyFigure | null;
  session?: SessionSpend;
  budgets: Map<string, BudgetFigure>;
}

export type Crossed =
  | { kind: 'daily'; figure: DailyFigure; threshold: Threshold; share?: Decimal }
  | { kind: 'session'; spend: SessionSpend; max: Decimal }
  | { kind: 'budget'; figure: BudgetFigure };

export interface GuardDecision {
  crossed: Crossed[];
  /** Limits that could not be checked, in words (the gateway unread, a budget not measured, no session). */
  unread: string[];
}

export function guardPath(stateDir: string, who: StatuslineIdentity): string {
  return statuslinePath(stateDir, who, 'guard');
}

const MAX_CACHE_BYTES = 256 * 1024;

/** The guard's cache for this identity; empty when the file holds anything tally did not write for it. */
export function readGuardCache(stateDir: string, who: StatuslineIdentity): GuardCache {
  const empty: GuardCache = { base_url: who.baseUrl.href, credential_id: credentialId(who.secret), budgets: [] };
  let file: unknown;
  try {
    file = JSON.parse(readOwnStateFile(guardPath(stateDir, who), MAX_CACHE_BYTES).toString('utf8'));
  } catch {
    return empty;
  }
  if (typeof file !== 'object' || file === null) return empty;
  const f = file as Record<string, unknown>;
  if (f.base_url !== empty.base_url || f.credential_id !== empty.credential_id) return empty;
  const daily = f.daily === null ? null : isDaily(f.daily) ? f.daily : undefined;
  const budgets = Array.isArray(f.budgets) ? f.budgets.filter(isBudget) : [];
  return { ...empty, ...(daily === undefined ? {} : { daily }), budgets };
}

export function writeGuardCache(stateDir: string, who: StatuslineIdentity, cache: GuardCache): void {
  const path = guardPath(stateDir, who);
  ensurePrivateDir(dirname(path), { own: true });
  writeFileAtomic(path, [JSON.stringify(cache)]);
}

const text = (v: unknown, max = 256): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const when = (v: unknown): v is string => text(v, 64) && Number.isFinite(Date.parse(v));

function isDaily(v: unknown): v is DailyFigure {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return isKeptDecimal(d.used) && (d.limit === null || isKeptDecimal(d.limit)) && text(d.currency, 3) && /^[A-Z]{3}$/.test(d.currency) && when(d.fetched_at);
}

function isBudget(v: unknown): v is BudgetFigure {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Record<string, unknown>;
  return (
    text(b.name, 64) &&
    isKeptDecimal(b.amount) &&
    text(b.currency, 3) &&
    text(b.period, 64) &&
    (b.scope === 'key' || b.scope === 'account') &&
    (b.models === undefined || (Array.isArray(b.models) && b.models.every((m) => text(m)))) &&
    (b.spent === null || isKeptDecimal(b.spent)) &&
    (b.percent === null || isKeptDecimal(b.percent)) &&
    text(b.state, 32) &&
    (b.not_measured === undefined || text(b.not_measured, 1024)) &&
    text(b.end_iso, 64) &&
    when(b.fetched_at) &&
    (b.measure === undefined || text(b.measure, 2048))
  );
}

/** The status line's figures as the guard's daily figure (the status line refreshes them at every prompt). */
export function dailyFromStatusline(figures: StatuslineFigures | undefined): DailyFigure | null | undefined {
  if (!figures) return undefined;
  if (figures.today === null) return null;
  return { used: figures.today, limit: figures.limit, currency: figures.currency, fetched_at: figures.fetched_at };
}

/** The fresher of two figures (by when each was fetched). */
export function fresher<T extends { fetched_at: string }>(a: T | null | undefined, b: T | null | undefined): T | null | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a === null || b === null) return a ?? b;
  return Date.parse(a.fetched_at) >= Date.parse(b.fetched_at) ? a : b;
}

/** Which of the limits need a fetch: those whose figure is missing or older than `maxAge` seconds. */
export function staleParts(limits: GuardLimits, figures: GuardFigures, now: number, maxAge: number, sessionKnown: boolean): { daily: boolean; session: boolean; budgets: string[] } {
  const stale = (f: { fetched_at: string } | null | undefined) => f === undefined || (f !== null && !isFresh(f.fetched_at, now, maxAge));
  return {
    daily: limits.maxDaily !== undefined && stale(figures.daily),
    session: limits.maxSession !== undefined && sessionKnown && stale(figures.session),
    budgets: limits.budgets.filter((name) => stale(figures.budgets.get(name)) || !standsFor(figures.budgets.get(name)!, limits.stored?.get(name), now)),
  };
}

/** Whether a kept budget figure stands for the budget as stored now: the same measure, and its period not over. */
function standsFor(figure: BudgetFigure, budget: StoredBudget | undefined, now: number): boolean {
  if (!budget || figure.measure !== budgetMeasure(budget)) return false;
  return Date.parse(figure.end_iso) > now;
}

/** A kept budget figure against the amount stored now: the share and state the amount gives. */
function againstAmount(figure: BudgetFigure, budget: StoredBudget | undefined): BudgetFigure {
  // One set in another currency is kept for its amount as set (its measure names it): its yuan amount is the day's rate's, never re-read here.
  if (!budget || budget.currency || figure.spent === null || budget.amount === figure.amount) return figure;
  const spent = new Decimal(figure.spent);
  const amount = new Decimal(budget.amount);
  const over = spent.gte(amount);
  return { ...figure, amount: budget.amount, percent: oneDecimal(spent.div(amount).mul(100)), state: over ? 'over' : figure.state === 'over' ? 'on track' : figure.state };
}

/** How old a figure may be and still decide (the gateway did not answer in time): beyond it, the limit is not checked. */
export const USABLE_FOR_SECONDS = 15 * 60;

/**
 * The guard's rule: a limit is crossed when its figure (no older than USABLE_FOR_SECONDS) says so:
 * today's spend past --max-daily-used (an amount, or a share of the daily limit), the session's
 * past --max-session-spend, a budget spent to its amount (the budget's own "over"). A limit
 * whose figure is missing, too old or not measured is unread, never passed or crossed on a guess.
 */
export function decide(limits: GuardLimits, figures: GuardFigures, now: number, sessionKnown: boolean): GuardDecision {
  const crossed: Crossed[] = [];
  const unread: string[] = [];
  const usable = (f: { fetched_at: string }) => isFresh(f.fetched_at, now, USABLE_FOR_SECONDS);
  if (limits.maxDaily) {
    const figure = figures.daily;
    if (figure === null) unread.push("--max-daily-used: this credential has no key of its own (a device token), so no daily limit");
    else if (!figure || !usable(figure)) unread.push("--max-daily-used: the key's spend today could not be read");
    else if (limits.maxDaily.kind === 'amount') {
      if (new Decimal(figure.used).gt(limits.maxDaily.value)) crossed.push({ kind: 'daily', figure, threshold: limits.maxDaily });
    } else {
      // The share of the limit by the figure's one rule (none of a zero limit, or of none).
      const day = dailyAllowance({ dailyUsed: new Decimal(figure.used), dailyLimit: figure.limit === null ? undefined : new Decimal(figure.limit) });
      if (day?.share === undefined) unread.push('--max-daily-used: the key has no daily limit to take a share of');
      else {
        const share = day.share.mul(100);
        if (share.gt(limits.maxDaily.value)) crossed.push({ kind: 'daily', figure, threshold: limits.maxDaily, share });
      }
    }
  }
  if (limits.maxSession) {
    const spend = figures.session;
    if (!sessionKnown) unread.push("--max-session-spend: the hook's input names no session");
    else if (!spend || !usable(spend)) unread.push("--max-session-spend: the session's spend could not be read");
    else if (new Decimal(spend.spent).gt(limits.maxSession)) crossed.push({ kind: 'session', spend, max: limits.maxSession });
  }
  for (const name of limits.budgets) {
    const stored = limits.stored?.get(name);
    const kept = figures.budgets.get(name);
    const figure = kept && (!limits.stored || standsFor(kept, stored, now)) ? againstAmount(kept, stored) : undefined;
    if (!figure || !usable(figure)) unread.push(`budget "${name}": its spend could not be read`);
    else if (figure.spent === null) unread.push(`budget "${name}": not measured (${figure.not_measured ?? 'the gateway does not say it'})`);
    else if (figure.state === 'over') crossed.push({ kind: 'budget', figure });
  }
  return { crossed, unread };
}
