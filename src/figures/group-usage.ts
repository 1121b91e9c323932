// Spend over a window per group of profiles (`tally usage --by group`): every stored profile's
// usage series over the window, whose spend it is (its account's or its key's, the fleet's
// identities), added up per group by the domain's rule (each account once, "unattributed" kept).
import type { Context } from '../context.js';
import { Decimal } from '../domain/money.js';
import { UsageError } from '../errors.js';
import { type GroupRow, type ProfileSpend, spendByGroup } from '../domain/groups.js';
import { accountOfBalance, acrossProfiles, keyOf, oneGatewayForAll } from '../across-profiles.js';
import { type SeriesRequest, loadUsageSeries, seriesSpend } from './usage-series.js';
import { spendMetric } from './forecast.js';
import { balanceOf } from './balance.js';

export interface GroupUsage {
  rows: GroupRow[];
  total: Decimal;
  shared: { identity: string; groups: string[] }[];
  /** Profiles that could not be read (each said), left out of every row. */
  failed: { profile: string; message: string }[];
  window: { start: number; end: number };
  currency: string;
}

export async function loadGroupUsage(ctx: Context, window: { since?: string; until?: string; month?: string; last?: string }): Promise<GroupUsage> {
  const groups = (await ctx.store()).groups();
  const results = await acrossProfiles(ctx, (profileCtx, profile) => spendOfProfile(profileCtx, profile, { bucket: 'day', ...window }));
  const rows: ProfileSpend[] = [];
  const failed: GroupUsage['failed'] = [];
  let window_: { start: number; end: number } | undefined;
  for (const result of results) {
    if ('value' in result) {
      rows.push(result.value.row);
      window_ ??= result.value.window;
    } else failed.push({ profile: result.profile, message: 'error' in result ? result.error.message : result.skipped });
  }
  return { ...spendByGroup(rows, groups), failed, window: window_ ?? { start: 0, end: 0 }, currency: 'CNY' };
}

/**
 * The spend of one group's profiles over a window (Unix seconds on the hour; a group budget's
 * period so far): each account (or key, where the gateway states a key's usage) once, however many
 * of the group's profiles read it. Never a partial sum: a profile that cannot be read, or a group
 * that is not stored, is why the spend cannot be told.
 */
export async function groupSpendOver(ctx: Context, group: string, window: { start: number; end: number }): Promise<{ spent: Decimal } | { why: string }> {
  const members = (await ctx.store()).groups()[group];
  if (!members?.length) return { why: `there is no group "${group}" (tally group list; tally group set ${group} --profiles P,Q makes it)` };
  // Each profile with its own base URL and credential: the environment's would stand for all of them.
  if (oneGatewayForAll(ctx)) return { why: `group "${group}" is read profile by profile, each with its own base URL and credential: unset TALLY_BASE_URL and TALLY_API_KEY (and leave out --base-url)` };
  const groupCtx = ctx.child({ profiles: members.join(','), allProfiles: false });
  if (Number.isFinite(ctx.deadline)) groupCtx.endBefore(ctx, 0);
  try {
    const results = await acrossProfiles(groupCtx, (profileCtx, profile) => spendOfProfile(profileCtx, profile, { bucket: 'hour', since: String(window.start), until: String(window.end) }));
    const once = new Map<string, Decimal>();
    for (const result of results) {
      if (!('value' in result)) return { why: `profile "${result.profile}" of group "${group}" could not be read (${'error' in result ? result.error.message : result.skipped})` };
      once.set(result.value.row.identity, result.value.row.spend);
    }
    return { spent: [...once.values()].reduce((sum, spend) => sum.plus(spend), new Decimal(0)) };
  } catch (error) {
    if (error instanceof UsageError) return { why: error.message };
    throw error;
  } finally {
    await groupCtx.dispose();
  }
}

/** One profile's spend over a window of its usage series, and whose it is (its account's or its key's, the fleet's identities; the profile's own where the gateway does not say). */
async function spendOfProfile(profileCtx: Context, profile: string, request: SeriesRequest): Promise<{ row: ProfileSpend; window: { start: number; end: number } }> {
  const series = await loadUsageSeries(profileCtx, request);
  const spend = seriesSpend(series, spendMetric(series, undefined));
  const identity = series.scope === 'key' ? await keyOf(profileCtx) : series.scope === 'account' ? await accountOfBalance(profileCtx, (await balanceOf(profileCtx)).raw) : undefined;
  return { row: { profile, identity: identity ?? `profile:${profile}`, spend }, window: series.window };
}
