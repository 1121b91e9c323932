// Groups of profiles (a team, a project): spend added up per group, each account once (the
// fleet's rule), and the profiles in no group on a row of their own, "unattributed", so the groups
// always add up to the total. Pure: the figure reads each profile, this adds them up.
import { Decimal } from './money.js';

export const UNATTRIBUTED = 'unattributed';
export const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ProfileSpend {
  profile: string;
  /** Whose spend it is: one account's or one key's (counted once however many profiles read it); the profile's own when the gateway does not say. */
  identity: string;
  spend: Decimal;
}

export interface GroupRow {
  group: string;
  profiles: string[];
  spend: Decimal;
}

/** The group a profile is in, if any. */
export function groupOf(profile: string, groups: Record<string, string[]>): string | undefined {
  return Object.keys(groups).sort().find((g) => groups[g]!.includes(profile));
}

/**
 * Spend per group and the total: each identity (account or key) counted once, in the group of the
 * first of its profiles (by name); `shared` names the identities whose profiles sit in several
 * groups (their spend is in the first group only, and said).
 */
export function spendByGroup(rows: ProfileSpend[], groups: Record<string, string[]>): { rows: GroupRow[]; total: Decimal; shared: { identity: string; groups: string[] }[] } {
  const byGroup = new Map<string, GroupRow>();
  for (const name of [...Object.keys(groups).sort(), UNATTRIBUTED]) byGroup.set(name, { group: name, profiles: [], spend: new Decimal(0) });
  const counted = new Map<string, string>();
  const seenIn = new Map<string, Set<string>>();
  let total = new Decimal(0);
  for (const row of [...rows].sort((a, b) => a.profile.localeCompare(b.profile))) {
    const group = groupOf(row.profile, groups) ?? UNATTRIBUTED;
    const entry = byGroup.get(group)!;
    entry.profiles.push(row.profile);
    seenIn.set(row.identity, new Set([...(seenIn.get(row.identity) ?? []), group]));
    if (counted.has(row.identity)) continue;
    counted.set(row.identity, group);
    entry.spend = entry.spend.plus(row.spend);
    total = total.plus(row.spend);
  }
  const shared = [...seenIn].filter(([, g]) => g.size > 1).map(([identity, g]) => ({ identity, groups: [...g].sort() }));
  return { rows: [...byGroup.values()], total, shared };
}
