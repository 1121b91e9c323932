// Running one command across profiles (--all-profiles, --profiles a,b): a Context per profile,
// each with its own base URL, credential, rate-limit pacing and caches, at most 4 at a time,
// within one --timeout. Each profile's run is the command itself, asked for its JSON document;
// the fleet view renders one row per profile (and a total when every currency agrees), or the
// envelope {"profiles": [...]}. One profile's failure never hides another's result.
import { OFFLINE_MARKER } from './statusline/cache.js';
import type { Command } from 'commander';
import type { Context } from './context.js';
import { CheckFailed, TallyError, UsageError } from './errors.js';
import { createTestIO } from './io.js';
import { errorText } from './output/error-text.js';
import { isDecimalString } from './domain/decimal-text.js';
import { plural } from './output/window-text.js';
import { emit } from './output/emit.js';
import { type CommandEntry, type CommandModule } from './cli/command.js';

/** The commands that answer for many profiles at once. */
export const FLEET_COMMANDS = ['balance', 'status', 'forecast', 'budget', 'check', 'billing', 'usage', 'statusline'];
const AT_ONCE = 4;

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

/** The profiles a fleet run covers: --profiles a,b (each must exist), else every stored one. */
async function chosenProfiles(parent: Context): Promise<{ name: string; skipped?: string }[]> {
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

function checkFleetEnvironment(parent: Context): void {
  if (parent.env.TALLY_BASE_URL || parent.env.TALLY_API_KEY || parent.options.baseUrl) {
    throw new UsageError('--all-profiles runs each stored profile with its own base URL and credential; unset TALLY_BASE_URL and TALLY_API_KEY (and leave out --base-url)');
  }
}

export async function runFleet(entry: CommandEntry, module: CommandModule, command: Command, parent: Context): Promise<void> {
  if (!FLEET_COMMANDS.includes(entry.name)) throw new UsageError(`--all-profiles and --profiles go with ${FLEET_COMMANDS.join(', ')}; ${entry.name} runs for one profile`);
  if (entry.name === 'usage' && command.opts().by === 'model') throw new UsageError('--all-profiles does not go with usage --by model (each profile names its models its own way): run it per profile');
  if (parent.options.csv) throw new UsageError('--csv prints one table of records; with --all-profiles use --json or the table');
  checkFleetEnvironment(parent);
  // check's reports (--junit, --markdown, GitHub's annotations and summary) are the fleet's: written
  // once with every profile's conditions, never once per profile over each other.
  const { junit, markdown, ...opts } = command.opts() as Record<string, unknown>;
  const reports = entry.name === 'check' ? { junit: typeof junit === 'string' ? junit : undefined, markdown: markdown === true } : undefined;
  if (reports?.markdown && parent.options.json) throw new UsageError('--markdown and --json each print the whole result; choose one');
  const runOptions = reports ? opts : command.opts();
  const profiles = await chosenProfiles(parent);
  const statusline = entry.name === 'statusline';
  const outcomes: ProfileOutcome[] = [];
  let next = 0;
  let done = 0;
  const runnable = profiles.filter((p) => !p.skipped);
  const worker = async () => {
    for (;;) {
      const profile = runnable[next++];
      if (!profile) return;
      outcomes.push(await runOne(module, command, runOptions, parent, profile.name, statusline));
      parent.progress(`${entry.name}: ${++done} of ${runnable.length} profiles done…`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, runnable.length) }, worker));
  parent.progress(undefined);
  for (const p of profiles) if (p.skipped) outcomes.push({ profile: p.name, ok: false, skipped: p.skipped, exitCode: 0 });
  outcomes.sort((a, b) => (a.profile < b.profile ? -1 : a.profile > b.profile ? 1 : 0));

  const groups = reports ? await checkGroups(outcomes, parent) : undefined;
  // The JUnit report is written whole before anything else can stop the run (a failing check included).
  const reportError = reports?.junit ? (await import('./output/check-report.js')).writeJunit(parent, reports.junit, groups!) : undefined;
  await emit(parent, {
    json: () => ({
      profiles: outcomes.map((o) =>
        o.skipped ? { profile: o.profile, ok: false, skipped: o.skipped, error: { kind: 'skipped', message: `skipped: ${o.skipped}` } }
        : o.ok ? { profile: o.profile, ok: true, ...(o.account ? { account: o.account } : {}), ...(o.key ? { key: o.key } : {}), result: statusline ? o.line : o.result }
        : { profile: o.profile, ok: false, error: o.error },
      ),
    }),
    human: async () => (reports?.markdown ? (await import('./output/check-report.js')).checksMarkdown(groups!) : renderFleet(entry.name, outcomes, parent)),
  });
  if (groups) (await import('./output/check-report.js')).reportToGitHub(parent, groups);
  if (reportError) throw reportError;
  // check: 5 when any condition failed in any profile; otherwise the first failed profile's code.
  if (entry.name === 'check' && outcomes.some((o) => o.exitCode === 5)) throw new CheckFailed('a condition failed in at least one profile');
  const failed = outcomes.find((o) => !o.ok && !o.skipped && o.exitCode !== 0);
  if (failed) throw new FleetFailed(`profile "${failed.profile}" failed: ${failed.error?.message ?? ''}`, failed.exitCode);
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

/** Each profile's conditions as check reports them, named by profile; a profile that could not be checked says why. */
async function checkGroups(outcomes: ProfileOutcome[], parent: Context) {
  const { checkLines } = await import('./output/check-report.js');
  return outcomes.map((o) => {
    if (!o.ok) return { profile: o.profile, checks: [], lines: [], skipped: [], error: o.skipped ? `skipped: ${o.skipped}` : (o.error?.message ?? 'failed') };
    const checks = (at(o.result, 'checks') as import('./output/check-report.js').CheckResult[] | undefined) ?? [];
    const skipped = checks.filter((c) => c.actual === null && c.detail?.startsWith('skipped')).map((c) => c.name);
    return { profile: o.profile, checks, lines: checkLines(checks, parent.options.exact), skipped };
  });
}

/** The environment a profile's run sees: GitHub's annotations and step summary are the fleet's to write, once. */
function profileEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { GITHUB_ACTIONS: _actions, GITHUB_STEP_SUMMARY: _summary, ...rest } = env;
  return rest;
}

async function runOne(module: CommandModule, command: Command, options: Record<string, unknown>, parent: Context, profile: string, statusline: boolean): Promise<ProfileOutcome> {
  const io = createTestIO({ stdoutIsTTY: false, stderrIsTTY: false, width: parent.io.width });
  const ctx = parent.child({ profile, allProfiles: false, profiles: undefined, json: !statusline, jq: undefined, csv: false, patient: true }, io, profileEnv(parent.env));
  // One --timeout for the whole run: every profile ends a little before the fleet's deadline, so a
  // profile that hangs fails in its own row and the others are still shown.
  ctx.endBefore(parent, fleetMargin(parent));
  // The balance record names the account; commands whose result does not hold it ask for it beside their run.
  const balanceAside = statusline || BALANCE_IN_RESULT[command.name()] ? undefined : accountBalance(ctx);
  try {
    await module.run(options, ctx, command.args, (name) => command.getOptionValueSource(name) === 'cli');
    if (statusline) return { profile, ok: true, line: io.stdout.trim(), exitCode: 0 };
    const result = JSON.parse(io.stdout) as unknown;
    return { profile, ok: true, result, exitCode: 0, account: await accountOf(ctx, result, command.name(), balanceAside), key: await keyOf(ctx) };
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    // A failed check still printed its document: the profile's result is there, with exit 5.
    if (error instanceof CheckFailed && io.stdout.trim()) {
      const result = JSON.parse(io.stdout) as unknown;
      return { profile, ok: true, result, exitCode: 5, account: await accountOf(ctx, result, command.name(), balanceAside), key: await keyOf(ctx) };
    }
    const text = errorText(error, parent.secrets);
    return { profile, ok: false, error: { kind: text.kind, message: text.message, ...(text.status !== undefined ? { status: text.status } : {}) }, exitCode: error instanceof TallyError ? error.exitCode : 1 };
  } finally {
    // What the profile's run said on stderr (a --fail-open skip, a warning) is said for it, never lost.
    for (const line of io.stderr.split('\n').filter((l) => l.trim())) parent.io.err(`${profile}: ${line}\n`);
    await ctx.dispose();
  }
}

/** Where a command's own JSON holds the balance record: the account can be named from it. */
const BALANCE_IN_RESULT: Record<string, (result: unknown) => unknown> = {
  balance: (r) => r,
  status: (r) => at(r, 'balance'),
};

async function accountBalance(ctx: Context): Promise<unknown> {
  try {
    const { fetchBalance } = await import('./api/balance.js');
    return (await fetchBalance(await ctx.client())).raw;
  } catch {
    return undefined;
  }
}

async function accountOf(ctx: Context, result: unknown, command: string, aside: Promise<unknown> | undefined): Promise<string | undefined> {
  return accountOfBalance(ctx, BALANCE_IN_RESULT[command]?.(result) ?? (await aside));
}

/**
 * An account's id, the one rule a fleet counts each account once by: a hash of the origin and of
 * what every key of the account reads alike in the balance record (currency, balance, lifetime spend).
 */
export async function accountOfBalance(ctx: Context, record: unknown): Promise<string | undefined> {
  const currency = text(at(record, 'currency'));
  const balance = text(at(record, 'balance'));
  const lifetime = text(at(record, 'lifetime_spend'));
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

/** The figures that matter for each command, one row per profile. */
async function renderFleet(command: string, outcomes: ProfileOutcome[], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }, { formatAmount }, { fitLines }, { Decimal }] = await Promise.all([
    import('./output/table.js'),
    import('./output/style.js'),
    import('./output/money.js'),
    import('./output/wrap.js'),
    import('./domain/money.js'),
  ]);
  const style = await styleFor(ctx);
  const columns = FLEET_COLUMNS[command]!;
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

interface FleetColumn {
  header: string;
  value: (result: unknown) => string | undefined;
  amount?: boolean;
  /** An amount that adds up to nothing meaningful across profiles (a limit, a percentage). */
  total?: false;
  /** `key`: a per-key figure, summed over every profile; otherwise the account's, counted once per account. */
  scope?: 'key';
  drop?: number;
  align?: 'right';
}

/** A runway in whole days, grouped as every count, marked where the key's own quota runs out first (its basis). */
function runwayCell(days: unknown, basis: unknown): string | undefined {
  const value = text(days);
  if (value === undefined || !/^\d+$/.test(value)) return value;
  return `${value.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${basis === 'key_quota' ? ' (key quota)' : ''}`;
}

const at = (result: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), result);
const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

function currencyOf(result: unknown): string {
  return text(at(result, 'currency')) ?? text(at(result, 'balance', 'currency')) ?? text(at(result, 'budgets', '0', 'currency')) ?? 'CNY';
}

function notMeasured(result: unknown): boolean {
  const checks = (at(result, 'checks') as { actual: unknown; detail?: unknown }[] | undefined) ?? [];
  return checks.some((c) => c.actual === null && typeof c.detail === 'string' && c.detail.startsWith('skipped'));
}

/** The money field of a usage document's totals: the decimal strings (the spec's money metric). */
function usageSpend(result: unknown): string | undefined {
  const totals = at(result, 'totals');
  if (!totals || typeof totals !== 'object') return undefined;
  const money = Object.values(totals as Record<string, unknown>).filter(isDecimalString);
  return money.length === 1 ? money[0] : undefined;
}

const FLEET_COLUMNS: Record<string, FleetColumn[]> = {
  balance: [
    { header: 'balance', value: (r) => text(at(r, 'balance')), amount: true },
    { header: 'lifetime spend', value: (r) => text(at(r, 'lifetime_spend')), amount: true, drop: 2 },
    { header: 'today', value: (r) => text(at(r, 'api_key', 'daily_cost_used')), amount: true, drop: 1, scope: 'key' },
    { header: 'daily limit', value: (r) => text(at(r, 'api_key', 'daily_cost_limit')), amount: true, total: false, drop: 3 },
  ],
  status: [
    { header: 'balance', value: (r) => text(at(r, 'balance', 'balance')), amount: true },
    { header: 'this month', value: (r) => text(at(r, 'forecast', 'month_to_date')), amount: true, drop: 2 },
    { header: 'avg a day', value: (r) => text(at(r, 'forecast', 'average_daily_spend')), amount: true, drop: 3 },
    { header: 'runway days', value: (r) => runwayCell(at(r, 'forecast', 'runway_days'), at(r, 'forecast', 'runway_basis')), drop: 1, align: 'right' },
  ],
  forecast: [
    { header: 'balance', value: (r) => text(at(r, 'balance')), amount: true },
    { header: 'avg a day', value: (r) => text(at(r, 'average_daily_spend')), amount: true },
    { header: 'runway days', value: (r) => runwayCell(at(r, 'runway_days'), at(r, 'runway_basis')), align: 'right' },
    { header: 'month projected', value: (r) => text(at(r, 'projected_month_end')), amount: true, drop: 1 },
  ],
  budget: [
    { header: 'budgets', value: (r) => ((at(r, 'budgets') as { name: string; percent: string; state: string }[] | undefined) ?? []).map((b) => `${b.name} ${b.percent}% ${b.state}`).join(' · ') || 'none stored' },
  ],
  check: [
    // A profile whose conditions --fail-open skipped was not measured: never "pass".
    { header: 'result', value: (r) => (notMeasured(r) ? 'not measured' : at(r, 'ok') === true ? 'pass' : 'FAIL') },
    { header: 'conditions', value: (r) => ((at(r, 'checks') as { name: string; level: string }[] | undefined) ?? []).map((c) => `${c.level.toUpperCase()} ${c.name}`).join(' · ') },
  ],
  billing: [
    { header: 'remaining', value: (r) => text(at(r, 'remaining')), amount: true },
  ],
  usage: [
    { header: 'spend', value: usageSpend, amount: true },
    { header: 'window', value: (r) => `${text(at(r, 'start_iso'))?.slice(0, 10)} → ${text(at(r, 'end_iso'))?.slice(0, 10)}` },
  ],
  statusline: [],
};
