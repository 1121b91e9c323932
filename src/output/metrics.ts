// The Prometheus families of `tally metrics`: each profile's figures as samples, amounts as the
// gateway wrote them (never through a float), a profile that failed as tally_up 0 and nothing else.
import { Decimal, derivedText } from '../domain/money.js';
import type { Figures } from '../figures/metrics.js';
import type { Family } from './prometheus.js';
import { UNATTRIBUTED, groupOf } from '../domain/groups.js';

/** The families for some profiles' figures; with groups stored, each series labelled with its profile's group ("unattributed" for none). */
export function metricsFamilies(all: Figures[], groups: Record<string, string[]> = {}): Family[] {
  const families = profileFamilies(all);
  if (Object.keys(groups).length === 0) return families;
  for (const family of families) for (const sample of family.samples) if (sample.labels.profile !== undefined) sample.labels = { ...sample.labels, group: groupOf(sample.labels.profile, groups) ?? UNATTRIBUTED };
  return families;
}

function profileFamilies(all: Figures[]): Family[] {
  const family = (name: string, help: string): Family => ({ name, help, type: 'gauge', samples: [] });
  const up = family('tally_up', '1 when the gateway answered for this profile, 0 when it did not (then no other series for it).');
  const balance = family('tally_balance', 'The account balance, in the currency the gateway states.');
  const lifetime = family('tally_lifetime_spend', 'Everything the account has spent.');
  const used = family('tally_key_daily_cost_used', "The key's spend today, as the gateway counts it.");
  const limit = family('tally_key_daily_cost_limit', "The key's daily spend limit.");
  const today = family('tally_spend_today', "Spend today on the gateway's day grid: without a model label the account's (usage, the money metric); with one this key's on that model (the top 10, the rest as other).");
  const runway = family('tally_runway_seconds', "How long the balance (or the key's own quota, when it runs out first) lasts at the pace of the last 7 complete days, in whole days as seconds (absent when nothing was spent).");
  const keyRemaining = family('tally_key_remaining', "What the key's own total quota leaves (keys with a quota whose record states its currency).");
  const budgetSpent = family('tally_budget_spent', "A budget's spend in its current period.");
  const budgetAmount = family('tally_budget_amount', "A budget's amount for each period.");
  const proxySpent = family('tally_proxy_spend', "What went through a running tally proxy for this profile since it started: each call's charge as the gateway's log booked it, else its estimate from usage at the catalog's prices.");
  const proxyEstimated = family('tally_proxy_spend_estimated', "The same calls estimated from each answer's usage at the catalog's prices.");
  const proxyBooked = family('tally_proxy_spend_booked', "What the gateway's log booked for a running tally proxy's calls so far.");
  const proxyInFlight = family('tally_proxy_in_flight', "The worst case of the calls in flight through a running tally proxy.");
  const proxyRefused = family('tally_proxy_calls_refused', 'Calls a running tally proxy refused since it started (each would have passed a limit).');
  for (const f of all) {
    up.samples.push({ labels: { profile: f.profile }, value: f.loaded || f.balanceOnly ? '1' : '0' });
    if (f.balanceOnly) {
      const raw = f.balanceOnly.raw;
      const labels = { profile: f.profile, currency: f.balanceOnly.currency };
      if (typeof raw.balance === 'string') balance.samples.push({ labels, value: raw.balance });
      if (typeof raw.lifetime_spend === 'string') lifetime.samples.push({ labels, value: raw.lifetime_spend });
    }
    if (!f.loaded) continue;
    const { balance: b, forecast } = f.loaded;
    const labels = { profile: f.profile, currency: b.currency };
    const raw = b.raw;
    if (typeof raw.balance === 'string') balance.samples.push({ labels, value: raw.balance });
    if (typeof raw.lifetime_spend === 'string') lifetime.samples.push({ labels, value: raw.lifetime_spend });
    const key = raw.api_key as Record<string, unknown> | null | undefined;
    if (key && typeof key.daily_cost_used === 'string') used.samples.push({ labels, value: key.daily_cost_used });
    if (key && typeof key.daily_cost_limit === 'string') limit.samples.push({ labels, value: key.daily_cost_limit });
    today.samples.push({ labels, value: f.spendToday ?? '0' });
    for (const m of f.models ?? []) today.samples.push({ labels: { ...labels, model: m.model }, value: m.spend });
    if (forecast.runwayDays !== null && f.loaded.allowance.quota.state !== 'unknown') runway.samples.push({ labels: { profile: f.profile }, value: forecast.runwayDays.mul(86_400).toFixed() });
    const quota = f.loaded.allowance.quota.state === 'quota' ? f.loaded.allowance.quota.quota : undefined;
    if (quota?.currency) keyRemaining.samples.push({ labels: { profile: f.profile, currency: quota.currency }, value: quota.remaining.toFixed() });
    for (const budget of f.budgets?.budgets ?? []) {
      const budgetLabels = { ...labels, budget: budget.name };
      // A budget whose spend cannot be told has its amount and no spent series (never a zero).
      if (budget.standing) budgetSpent.samples.push({ labels: budgetLabels, value: derivedText(budget.standing.spent) });
      // In yuan: one set in another currency has its amount here only at a known rate.
      if (!budget.budget.currency) budgetAmount.samples.push({ labels: budgetLabels, value: new Decimal(budget.budget.amount).toFixed() });
    }
    if (f.proxy) {
      proxySpent.samples.push({ labels, value: f.proxy.spent });
      proxyEstimated.samples.push({ labels, value: f.proxy.estimated });
      proxyBooked.samples.push({ labels, value: f.proxy.booked });
      proxyInFlight.samples.push({ labels, value: f.proxy.in_flight });
      proxyRefused.samples.push({ labels: { profile: f.profile }, value: String(f.proxy.refused) });
    }
  }
  return [up, balance, lifetime, used, limit, today, runway, keyRemaining, budgetSpent, budgetAmount, proxySpent, proxyEstimated, proxyBooked, proxyInFlight, proxyRefused];
}
