// Every profile's report for one period (`report --all-profiles`): asked for together, each
// profile's spend set down to the account (or the key) it is, and the period's spend and the one
// before with each account counted once (two keys of one account share its spend); a profile
// that failed, hung past --timeout or was skipped is said with its exit code, never a zero.
import type { Context } from '../context.js';
import { Decimal } from '../domain/money.js';
import type { Report, ReportRequest } from './report.js';
import { type GroupRow, spendByGroup } from '../domain/groups.js';

export interface FleetItem {
  report: Report;
  profile: string;
  /** Whose spend the report's total is (an account, or a key), to count each once; undefined: unknown, counted per profile. */
  account: string | undefined;
}

export interface FailedProfile {
  profile: string;
  error: { kind: string; message: string };
  exitCode: number;
}

/** Spend of a fleet: each account once. */
export interface FleetTotals {
  accounts: number;
  current: Decimal;
  previous: Decimal;
}

export interface FleetReports {
  items: FleetItem[];
  failed: FailedProfile[];
  totals: FleetTotals;
  /** With --by group: the period's spend per group of profiles, each account once, the unattributed kept. */
  groups?: { rows: GroupRow[]; total: Decimal };
}

/** Every profile's report; none to report on is the run's failure (the first failed profile's exit code, as every fleet). */
export async function loadFleetReports(ctx: Context, request: ReportRequest, groups?: Record<string, string[]>): Promise<FleetReports> {
  const [{ acrossProfiles, accountOfBalance, keyOf, FleetFailed }, { loadReport }] = await Promise.all([import('../across-profiles.js'), import('./report.js')]);
  const results = await acrossProfiles(ctx, async (profileCtx, profile): Promise<FleetItem> => {
    const report = await loadReport(profileCtx, request);
    // Spend the gateway states as the account's is counted once per account; a key's, once per key (the fleet table's rules).
    const account = report.spendScope === 'key' ? await keyOf(profileCtx) : report.spendScope === 'account' ? await accountOfBalance(profileCtx, report.forecast.balance.raw) : undefined;
    return { report, profile, account };
  });
  const items = results.flatMap((r) => ('value' in r ? [r.value] : []));
  const failed = results.flatMap((r): FailedProfile[] => ('skipped' in r ? [{ profile: r.profile, error: { kind: 'skipped', message: `skipped: ${r.skipped}` }, exitCode: 0 }] : 'error' in r ? [r] : []));
  if (items.length === 0) {
    throw new FleetFailed(`no profile could be reported on: ${failed.map((o) => `${o.profile} (${o.error.message})`).join('; ')}`, failed.find((o) => o.exitCode !== 0)?.exitCode ?? 2);
  }
  const byGroup = groups && spendByGroup(items.map((i) => ({ profile: i.profile, identity: i.account ?? `profile:${i.profile}`, spend: i.report.spend.current })), groups);
  return { items, failed, totals: fleetTotals(items), ...(byGroup ? { groups: { rows: byGroup.rows, total: byGroup.total } } : {}) };
}

/** The spend of the period and the one before, each account once (an unknown account is its profile's own). */
export function fleetTotals(items: Pick<FleetItem, 'report' | 'account'>[]): FleetTotals {
  const seen = new Set<string>();
  let current = new Decimal(0);
  let previous = new Decimal(0);
  for (const [i, item] of items.entries()) {
    const key = item.account ?? `profile ${i}`;
    if (seen.has(key)) continue;
    seen.add(key);
    current = current.plus(item.report.spend.current);
    previous = previous.plus(item.report.spend.previous);
  }
  return { accounts: seen.size, current, previous };
}
