// How a fleet reads: one row per profile with the figures that matter for each command, a total
// row that counts each account once, and why a profile failed or was skipped.
import type { Context } from '../context.js';
import { OFFLINE_MARKER } from '../statusline/cache.js';
import { groupDigits, isDecimalString } from '../domain/decimal-text.js';
import { plural } from './window-text.js';
import { type JsonNumber, type Parsed, numberText } from '../domain/json.js';
import type { BalanceDocument } from '../api/balance.js';
import type { CheckResult } from '../figures/check-gates.js';
import type { budgetJson } from '../figures/budgets.js';
import type { forecastJson } from '../figures/forecast.js';
import type { StatusDocument } from '../figures/status.js';
import type { usageJson } from '../figures/usage-series.js';
import type { BillingDocument } from './billing.js';

/** What one profile of a fleet gave: its result (and whose account and key it is), or why it failed or was skipped. */
export interface ProfileOutcome {
  profile: string;
  ok: boolean;
  /** Which account the profile's key spends from (same origin, currency, balance and lifetime spend), when known. */
  account?: string;
  /** Which key it is (the origin and a hash of the credential): one key stored under two profiles is one key. */
  key?: string;
  result?: unknown;
  /** The statusline's line (it has no JSON). */
  line?: string;
  error?: { kind: string; message: string; status?: number };
  exitCode: number;
  skipped?: string;
}

/** The figures that matter for each command, one row per profile. */
export async function renderFleet(command: string, outcomes: ProfileOutcome[], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }, { formatAmount }, { fitLines }, { Decimal }] = await Promise.all([
    import('./table.js'),
    import('./style.js'),
    import('./money.js'),
    import('./wrap.js'),
    import('../domain/money.js'),
  ]);
  const style = await styleFor(ctx);
  const columns = columnsOf(command);
  const currencies = new Set(outcomes.filter((o) => o.ok).map((o) => currencyOf(o.result)));
  const money = (value: string | undefined, currency: string) => (value === undefined ? '—' : formatAmount(value, 'account', { currency, exact: ctx.options.exact }));
  // A profile that failed or was skipped says why in a column of its own (never in a figure's).
  const problem = (o: ProfileOutcome) => (o.skipped ? `skipped: ${o.skipped}` : o.ok ? '' : `error: ${o.error?.message ?? ''}`);
  const problems = outcomes.some((o) => problem(o) !== '');
  const rows = outcomes.map((o) => {
    const why = problems ? [problem(o)] : [];
    if (!o.ok) return [o.profile, ...(command === 'statusline' ? [''] : columns.map(() => '')), ...why];
    if (command === 'statusline') return [o.profile, o.line ?? '', ...why];
    const currency = currencyOf(o.result);
    return [o.profile, ...columns.map((c) => (c.amount ? money(c.value(o.result), currency) : (c.value(o.result) ?? '—'))), ...why];
  });
  const summed = columns.map((c) => c.amount && c.total !== false);
  let footer: string[] | undefined;
  const ok = outcomes.filter((o) => o.ok);
  if (command !== 'statusline' && ok.length > 1 && currencies.size === 1 && summed.some(Boolean)) {
    const currency = [...currencies][0]!;
    // Account-level figures count each account once (its first profile); per-key figures every key.
    const firstOfAccount = ok.filter((o, i) => o.account === undefined || ok.findIndex((p) => p.account === o.account) === i);
    // Per-key figures count each key once: one key under two profiles is one key.
    const firstOfKey = ok.filter((o, i) => o.key === undefined || ok.findIndex((p) => p.key === o.key) === i);
    footer = ['total', ...columns.map((c, i) => {
      if (!summed[i]) return '';
      const values = (c.scope === 'key' ? firstOfKey : firstOfAccount).map((o) => c.value(o.result)).filter((v): v is string => v !== undefined);
      return money(values.reduce((a, b) => a.plus(b), new Decimal(0)).toFixed(), currency);
    })];
  }
  const figures = command === 'statusline' ? [{ header: 'statusline' }] : columns.map((c) => ({ header: c.header, align: c.amount ? ('decimal' as const) : (c.align ?? ('left' as const)), dropOrder: c.drop }));
  // The error column gives way first on a narrow terminal: each error is written out whole below the table there.
  const headers = [{ header: 'profile' }, ...figures, ...(problems ? [{ header: 'error', dropOrder: 10 }] : [])];
  const table = await renderTable({ columns: headers, rows, footer: footer && (problems ? [...footer, ''] : footer) }, style);
  // A statusline that could only say "offline" (nothing cached, the gateway not answering) did not answer.
  const answered = outcomes.filter((o) => o.ok && !(command === 'statusline' && o.line === OFFLINE_MARKER)).length;
  const counted = currencies.size > 1 ? 'no total: the profiles state different currencies' : `${plural(outcomes.length, 'profile')} · ${answered} answered`;
  // On a terminal the error column may be hidden or shortened to fit: each error is also written out whole below.
  const whole = Number.isFinite(style.width) && !style.wide ? outcomes.filter((o) => problem(o) !== '').map((o) => `${o.profile}: ${problem(o)}`) : [];
  const note = [[counted, ...sharedAccounts(outcomes)].join(' · '), ...whole].join('\n');
  return `${table}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** "main and ltd share an account": every group of profiles whose keys spend from one account (each is counted once in totals). */
function sharedAccounts(outcomes: ProfileOutcome[]): string[] {
  const groups = new Map<string, string[]>();
  const keys = new Map<string, string[]>();
  for (const o of outcomes) if (o.ok && o.account) groups.set(o.account, [...(groups.get(o.account) ?? []), o.profile]);
  for (const o of outcomes) if (o.ok && o.key) keys.set(o.key, [...(keys.get(o.key) ?? []), o.profile]);
  const both = (g: string[]) => `${g.slice(0, -1).join(', ')} and ${g.at(-1)}`;
  return [
    ...[...keys.values()].filter((g) => g.length > 1).map((g) => `${both(g)} are the same key (counted once)`),
    ...[...groups.values()].filter((g) => g.length > 1).map((g) => `${both(g)} share an account (counted once)`),
  ];
}

/** A column of the fleet table: what it reads from each profile's document (`D`, as the command's --json writes it). */
interface FleetColumn<D> {
  header: string;
  value: (result: D) => string | undefined;
  amount?: boolean;
  /** An amount that adds up to nothing meaningful across profiles (a limit, a percentage). */
  total?: false;
  /** `key`: a per-key figure, summed over every profile; otherwise the account's, counted once per account. */
  scope?: 'key';
  drop?: number;
  align?: 'right';
}

/**
 * Each fleet command's document, typed by the figure that writes it (a field renamed there is a
 * column that no longer compiles here), as a fleet reads it back: each profile's run prints its
 * --json document and the fleet parses it.
 */
interface FleetDocuments {
  balance: BalanceDocument & { key_quota?: { remaining: string; currency?: string } };
  status: Parsed<StatusDocument>;
  forecast: Parsed<ReturnType<typeof forecastJson>>;
  budget: Parsed<ReturnType<typeof budgetJson>>;
  check: Parsed<{ ok: boolean; checks: CheckResult[] }>;
  billing: Parsed<BillingDocument>;
  usage: Parsed<ReturnType<typeof usageJson>>;
  statusline: never;
}

/** A runway in whole days, grouped as every count, marked where the key's own quota runs out first (its basis). */
function runwayCell(days: JsonNumber | null, basis: string): string | undefined {
  if (days === null) return undefined;
  return `${groupDigits(numberText(days))}${basis === 'key_quota' ? ' (key quota)' : ''}`;
}

export const at = (result: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), result);
export const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** The currency a profile's document states (CNY when it states none). */
function currencyOf(result: unknown): string {
  return text(at(result, 'currency')) ?? text(at(result, 'balance', 'currency')) ?? text(at(result, 'budgets', '0', 'currency')) ?? 'CNY';
}

/** A check document whose conditions --fail-open skipped was not measured: never "pass". */
function notMeasured(result: FleetDocuments['check']): boolean {
  return result.checks.some((c) => c.actual === null && typeof c.detail === 'string' && c.detail.startsWith('skipped'));
}

/** The money field of a usage document's totals: the decimal strings (the spec's money metric). */
function usageSpend(result: FleetDocuments['usage']): string | undefined {
  const money = Object.values(result.totals).filter(isDecimalString);
  return money.length === 1 ? money[0] : undefined;
}

const FLEET_COLUMNS: { [C in keyof FleetDocuments]: FleetColumn<FleetDocuments[C]>[] } = {
  balance: [
    { header: 'balance', value: (r) => r.balance, amount: true },
    { header: 'lifetime spend', value: (r) => r.lifetime_spend, amount: true, drop: 2 },
    { header: 'today', value: (r) => r.api_key?.daily_cost_used ?? undefined, amount: true, drop: 1, scope: 'key' },
    { header: 'daily limit', value: (r) => r.api_key?.daily_cost_limit ?? undefined, amount: true, total: false, drop: 3 },
    // What the key's own quota leaves, for a key that has one (— for the others).
    // A quota that states no unit (or another) is not shown as an amount in the balance's.
    { header: 'key left', value: (r) => (r.key_quota?.currency === r.currency ? r.key_quota.remaining : undefined), amount: true, drop: 4, scope: 'key' },
  ],
  status: [
    { header: 'balance', value: (r) => r.balance.balance, amount: true },
    // A device token reads the balance only: the rest of its row is — (the status document says what needs an API key).
    { header: 'this month', value: (r) => r.forecast?.month_to_date, amount: true, drop: 2 },
    { header: 'avg a day', value: (r) => r.forecast?.average_daily_spend, amount: true, drop: 3 },
    { header: 'runway days', value: (r) => (r.forecast ? runwayCell(r.forecast.runway_days, r.forecast.runway_basis) : undefined), drop: 1, align: 'right' },
  ],
  forecast: [
    { header: 'balance', value: (r) => r.balance, amount: true },
    { header: 'avg a day', value: (r) => r.average_daily_spend, amount: true },
    { header: 'runway days', value: (r) => runwayCell(r.runway_days, r.runway_basis), align: 'right' },
    { header: 'month projected', value: (r) => r.projected_month_end, amount: true, drop: 1 },
  ],
  budget: [
    { header: 'budgets', value: (r) => r.budgets.map((b) => `${b.name} (${b.scope === 'key' ? 'this key' : 'the account'}${b.models ? `, ${b.models.join(', ')}` : ''}) ${b.percent === null ? 'not measured' : `${b.percent}% ${b.state}`}`).join(' · ') || 'none stored' },
  ],
  check: [
    { header: 'result', value: (r) => (notMeasured(r) ? 'not measured' : r.ok ? 'pass' : 'FAIL') },
    { header: 'conditions', value: (r) => r.checks.map((c) => `${c.level.toUpperCase()} ${c.name}`).join(' · ') },
  ],
  billing: [
    { header: 'remaining', value: (r) => r.remaining ?? undefined, amount: true },
  ],
  usage: [
    { header: 'spend', value: usageSpend, amount: true },
    { header: 'window', value: (r) => `${r.start_iso.slice(0, 10)} → ${r.end_iso.slice(0, 10)}` },
  ],
  statusline: [],
};

/** The columns of a fleet command, reading each profile's parsed document (the one place it is taken to be that command's). */
function columnsOf(command: string): FleetColumn<unknown>[] {
  return (FLEET_COLUMNS[command as keyof FleetDocuments] ?? []) as FleetColumn<unknown>[];
}
