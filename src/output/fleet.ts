// How a fleet reads: one row per profile with the figures that matter for each command, a total
// row that counts each account once, and why a profile failed or was skipped.
import type { Context } from '../context.js';
import { OFFLINE_MARKER } from '../statusline/cache.js';
import { plural } from './window-text.js';

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

/** The figures that matter for the command (its row's columns; a line each without one), one row per profile. */
export async function renderFleet(command: string, row: FleetRow<unknown> | undefined, outcomes: ProfileOutcome[], ctx: Context): Promise<string> {
  const lines = row === undefined;
  const [{ renderTable }, { styleFor }, { formatAmount }, { fitLines }, { Decimal }] = await Promise.all([
    import('./table.js'),
    import('./style.js'),
    import('./money.js'),
    import('./wrap.js'),
    import('../domain/money.js'),
  ]);
  const style = await styleFor(ctx);
  const columns = row?.columns ?? [];
  const currencies = new Set(outcomes.filter((o) => o.ok).map((o) => currencyOf(row, o.result)));
  const money = (value: string | undefined, currency: string) => (value === undefined ? '—' : formatAmount(value, 'account', { currency, exact: ctx.options.exact }));
  // A profile that failed or was skipped says why in a column of its own (never in a figure's).
  const problem = (o: ProfileOutcome) => (o.skipped ? `skipped: ${o.skipped}` : o.ok ? '' : `error: ${o.error?.message ?? ''}`);
  const problems = outcomes.some((o) => problem(o) !== '');
  const rows = outcomes.map((o) => {
    const why = problems ? [problem(o)] : [];
    if (!o.ok) return [o.profile, ...(lines ? [''] : columns.map(() => '')), ...why];
    if (lines) return [o.profile, o.line ?? '', ...why];
    const currency = currencyOf(row, o.result);
    return [o.profile, ...columns.map((c) => (c.amount ? money(c.value(o.result), currency) : (c.value(o.result) ?? '—'))), ...why];
  });
  const summed = columns.map((c) => c.amount && c.total !== false);
  let footer: string[] | undefined;
  const ok = outcomes.filter((o) => o.ok);
  if (!lines && ok.length > 1 && currencies.size === 1 && summed.some(Boolean)) {
    const currency = [...currencies][0]!;
    // Account-level figures count each account once, from the first of its profiles that can read
    // the figure (a device token beside API keys reads the balance but not usage); per-key figures every key.
    const accountValues = (c: FleetColumn<unknown>) => {
      const counted = new Set<string>();
      return ok.flatMap((o) => {
        const value = c.value(o.result);
        if (value === undefined || (o.account !== undefined && counted.has(o.account))) return [];
        if (o.account !== undefined) counted.add(o.account);
        return [value];
      });
    };
    // Per-key figures count each key once: one key under two profiles is one key.
    const firstOfKey = ok.filter((o, i) => o.key === undefined || ok.findIndex((p) => p.key === o.key) === i);
    footer = ['total', ...columns.map((c, i) => {
      if (!summed[i]) return '';
      const values = c.scope === 'key' ? firstOfKey.map((o) => c.value(o.result)).filter((v): v is string => v !== undefined) : accountValues(c);
      return money(values.reduce((a, b) => a.plus(b), new Decimal(0)).toFixed(), currency);
    })];
  }
  const figures = lines ? [{ header: command }] : columns.map((c) => ({ header: c.header, align: c.amount ? ('decimal' as const) : (c.align ?? ('left' as const)), dropOrder: c.drop }));
  // The error column gives way first on a narrow terminal: each error is written out whole below the table there.
  const headers = [{ header: 'profile' }, ...figures, ...(problems ? [{ header: 'error', dropOrder: 10 }] : [])];
  const table = await renderTable({ columns: headers, rows, footer: footer && (problems ? [...footer, ''] : footer) }, style);
  // A statusline that could only say "offline" (nothing cached, the gateway not answering) did not answer.
  const answered = outcomes.filter((o) => o.ok && !(lines && o.line === OFFLINE_MARKER)).length;
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
export interface FleetColumn<D> {
  header: string;
  value(result: D): string | undefined;
  amount?: boolean;
  /** An amount that adds up to nothing meaningful across profiles (a limit, a percentage). */
  total?: false;
  /** `key`: a per-key figure, summed over every profile; otherwise the account's, counted once per account. */
  scope?: 'key';
  drop?: number;
  align?: 'right';
}

/**
 * How a command's row reads in the fleet's table (--all-profiles), over its --json document `D`
 * as each profile's run prints it (typed by the figure that writes it: a field renamed there is a
 * column that no longer compiles): its columns, and where the document states the currency and
 * holds the balance record (the account is named from it; else the fleet asks for the balance).
 * Each command that runs in rows defines its own, beside its view.
 */
export interface FleetRow<D> {
  columns: FleetColumn<D>[];
  currency?(result: D): unknown;
  balance?(result: D): unknown;
}

export const at = (result: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), result);
export const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** The currency a profile's document states (CNY when it states none). */
function currencyOf(row: FleetRow<unknown> | undefined, result: unknown): string {
  return text(row?.currency ? row.currency(result) : at(result, 'currency')) ?? 'CNY';
}
