// Each stored profile's figure, for the commands and figures that gather across profiles (report,
// export, metrics, usage --by group, a group's budget) and for the fleet's loop (fleet.ts): which
// profiles a run covers (--profiles a,b, else every stored one), a context for each within one
// --timeout, at most four at a time, one profile's failure its own result; and whose account and
// key each profile reads, so an account is counted once.
import type { Context } from './context.js';
import { TallyError, UsageError } from './errors.js';
import { errorText } from './output/error-text.js';
import { isDecimalString } from './domain/decimal-text.js';

/** Profiles run at once. */
export const AT_ONCE = 4;

/** The profiles a fleet run covers: --profiles a,b (each must exist), else every stored one; the base URL and key come from each. */
export async function fleetProfiles(parent: Context): Promise<{ name: string; skipped?: string }[]> {
  checkFleetEnvironment(parent);
  return chosenProfiles(parent);
}

export async function chosenProfiles(parent: Context): Promise<{ name: string; skipped?: string }[]> {
  const store = await parent.store();
  const stored = store.profileNames().sort();
  const named = parent.options.profiles?.split(',').map((p) => p.trim()).filter(Boolean);
  if (named) {
    const missing = named.filter((p) => !stored.includes(p));
    if (missing.length) throw new UsageError(`--profiles names ${missing.map((p) => `"${p}"`).join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not stored`, { hint: stored.length ? `Stored profiles: ${stored.join(', ')}.` : 'No profile is stored yet.' });
  }
  return (named ?? stored).map((name) => {
    const record = store.profile(name);
    if (!record?.base_url) return { name, skipped: 'no base URL' };
    if (!record.api_key && !record.device_token?.access_token) return { name, skipped: 'no credential (run `tally --profile NAME login`)' };
    return { name };
  });
}

/**
 * A context for each chosen profile (none for a skipped one), for commands that gather across
 * profiles themselves (metrics, report, export). Under one --timeout each ends a little before the
 * fleet's deadline, as in runFleet, so a profile that hangs fails in time for the others to be shown.
 */
export async function profileContexts(parent: Context): Promise<{ name: string; ctx?: Context; skipped?: string }[]> {
  checkFleetEnvironment(parent);
  const profiles = await chosenProfiles(parent);
  return profiles.map((p) => {
    if (p.skipped) return p;
    // A fleet waits out a busy minute's rate limit within --timeout: a profile is not "not reported" for a window that reopens in time.
    const ctx = parent.child({ profile: p.name, allProfiles: false, profiles: undefined, patient: true });
    // A server's context has no deadline: each scrape's profiles keep their own --timeout.
    if (Number.isFinite(parent.deadline)) ctx.endBefore(parent, fleetMargin(parent));
    return { name: p.name, ctx };
  });
}

/** One profile's part of a fleet: its figure, why it failed, or why it was skipped. */
export type ProfileResult<T> =
  | { profile: string; value: T }
  | { profile: string; error: { kind: string; message: string }; exitCode: number }
  | { profile: string; skipped: string };

/**
 * A figure for every chosen profile: the one way report, export and metrics run across
 * profiles. Each profile has a context of its own (ending before the fleet's deadline, so a
 * profile that hangs fails in time for the others), at most four at a time (one after another
 * with `sequential`); a profile that fails is its own result (with `failFast`, the end of the
 * run: a ledger is whole or not written); Ctrl-C ends them all. The contexts are disposed.
 */
export async function acrossProfiles<T>(parent: Context, load: (ctx: Context, profile: string) => Promise<T>, options: { sequential?: boolean; failFast?: boolean } = {}): Promise<ProfileResult<T>[]> {
  const contexts = await profileContexts(parent);
  const results: ProfileResult<T>[] = new Array(contexts.length);
  try {
    let next = 0;
    const worker = async () => {
      for (;;) {
        const i = next++;
        const entry = contexts[i];
        if (!entry) return;
        if (!entry.ctx) {
          if (options.failFast) throw new UsageError(`profile "${entry.name}" cannot be used: ${entry.skipped}`);
          results[i] = { profile: entry.name, skipped: entry.skipped ?? 'skipped' };
          continue;
        }
        try {
          results[i] = { profile: entry.name, value: await load(entry.ctx, entry.name) };
        } catch (error) {
          if (options.failFast || (error instanceof TallyError && error.kind === 'interrupted')) throw error;
          const text = errorText(error, parent.secrets);
          results[i] = { profile: entry.name, error: { kind: text.kind, message: text.message }, exitCode: error instanceof TallyError ? error.exitCode : 1 };
        }
      }
    };
    await Promise.all(Array.from({ length: options.sequential ? 1 : Math.min(AT_ONCE, contexts.length) }, worker));
    return results;
  } finally {
    await Promise.all(contexts.map((c) => (c.ctx !== parent ? c.ctx?.dispose() : undefined)));
  }
}

/** Whether the environment or --base-url names one gateway and key, which would stand for every profile of a run across them. */
export function oneGatewayForAll(parent: Context): boolean {
  return Boolean(parent.env.TALLY_BASE_URL || parent.env.TALLY_API_KEY || parent.options.baseUrl);
}

export function checkFleetEnvironment(parent: Context): void {
  if (oneGatewayForAll(parent)) {
    throw new UsageError('--all-profiles runs each stored profile with its own base URL and credential; unset TALLY_BASE_URL and TALLY_API_KEY (and leave out --base-url)');
  }
}

/** What a fleet keeps of its --timeout for showing the rows: a tenth, between 0.1 s and 1 s. */
export function fleetMargin(parent: Context): number {
  return Math.min(1000, Math.max(100, parent.options.timeout * 100));
}

/** The exit code of the first failed profile, carried out of the fleet. */
export class FleetFailed extends TallyError {
  readonly kind = 'fleet' as never;
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * An account's id, the one rule a fleet counts each account once by: a hash of the origin and of
 * what every key of the account reads alike in the balance record (currency, balance, lifetime spend).
 */
export async function accountOfBalance(ctx: Context, record: unknown): Promise<string | undefined> {
  const field = (name: string) => {
    const value = record && typeof record === 'object' ? (record as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  };
  const currency = field('currency');
  const balance = field('balance');
  const lifetime = field('lifetime_spend');
  if (!currency || !isDecimalString(balance) || !isDecimalString(lifetime)) return undefined;
  const [{ accountId }, settings] = await Promise.all([import('./settings/cache-key.js'), ctx.settings()]);
  const origin = settings.baseUrl?.origin ?? '';
  return accountId(origin, currency, balance, lifetime);
}

/** A key's id in a fleet: the origin and the credential's hash (never the secret), alike for one key stored under two profiles. */
export async function keyOf(ctx: Context): Promise<string | undefined> {
  const settings = await ctx.settings();
  const secret = settings.credential?.secret;
  if (!secret || !settings.baseUrl) return undefined;
  const { credentialId } = await import('./settings/cache-key.js');
  return `key-${credentialId(`${settings.baseUrl.origin}\u0000${secret}`)}`;
}
