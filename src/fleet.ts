// Running one command across profiles (--all-profiles, --profiles a,b): a Context per profile,
// each with its own base URL, credential, rate-limit pacing and caches, at most 4 at a time,
// within one --timeout. Each profile's run is the command itself, asked for its JSON document;
// the fleet view renders one row per profile (and a total when every currency agrees), or the
// envelope {"profiles": [...]}. One profile's failure never hides another's result.
import type { Command } from 'commander';
import type { Context } from './context.js';
import { CheckFailed, TallyError, UsageError } from './errors.js';
import { createTestIO } from './io.js';
import { errorText } from './output/error-text.js';
import { isDecimalString } from './domain/decimal-text.js';
import { parseJson } from './domain/json.js';
import { type ProfileOutcome, at, renderFleet, text } from './output/fleet.js';
import { emit } from './output/emit.js';
import { type CommandEntry, type CommandModule, outputOf } from './cli/command.js';

export type { ProfileOutcome };

/** Profiles run at once. */
const AT_ONCE = 4;

/** The profiles a fleet run covers: --profiles a,b (each must exist), else every stored one; the base URL and key come from each. */
export async function fleetProfiles(parent: Context): Promise<{ name: string; skipped?: string }[]> {
  checkFleetEnvironment(parent);
  return chosenProfiles(parent);
}

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

/** Runs a command once per profile into the fleet's table (the registry's `fleet: 'rows'`, its row the module's `fleetRow`; `'lines'`, a line each); `rows` names the commands that run so. */
export async function runFleet(entry: CommandEntry, module: CommandModule, command: Command, parent: Context, rows: string[]): Promise<void> {
  if (entry.fleet !== 'rows' && entry.fleet !== 'lines') throw new UsageError(`--all-profiles and --profiles go with ${rows.join(', ')}; ${entry.name} runs for one profile`);
  if (parent.options.csv) throw new UsageError('--csv prints one table of records; with --all-profiles use --json or the table');
  checkFleetEnvironment(parent);
  // check's reports (--junit, --markdown, GitHub's annotations and summary) are the fleet's: written
  // once with every profile's conditions, never once per profile over each other.
  const { junit, markdown, ...opts } = command.opts() as Record<string, unknown>;
  const reports = entry.gates ? { junit: typeof junit === 'string' ? junit : undefined, markdown: markdown === true } : undefined;
  if (reports?.markdown && parent.options.json) throw new UsageError('--markdown and --json each print the whole result; choose one');
  const runOptions = reports ? opts : command.opts();
  const statusline = entry.fleet === 'lines';
  // The flags are parsed once, as each profile's run sees them (a document each, or a line): a
  // flag that cannot be is one usage error before any profile is asked.
  const output = { ...outputOf(parent.options), json: !statusline, csv: false, jq: false };
  const request = module.parse(runOptions, { args: command.args, given: (name) => command.getOptionValueSource(name) === 'cli', output, profiles: true });
  const profiles = await chosenProfiles(parent);
  const outcomes: ProfileOutcome[] = [];
  let next = 0;
  let done = 0;
  const runnable = profiles.filter((p) => !p.skipped);
  const worker = async () => {
    for (;;) {
      const profile = runnable[next++];
      if (!profile) return;
      outcomes.push(await runOne(module, request, parent, profile.name, statusline));
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
    human: async () => (reports?.markdown ? (await import('./output/check-report.js')).checksMarkdown(groups!) : renderFleet(entry.name, module.fleetRow, outcomes, parent)),
  });
  if (groups) (await import('./output/check-report.js')).reportToGitHub(parent, groups);
  if (reportError) throw reportError;
  // check: 5 when any condition failed in any profile; otherwise the first failed profile's code.
  if (entry.gates && outcomes.some((o) => o.exitCode === 5)) throw new CheckFailed('a condition failed in at least one profile');
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

async function runOne(module: CommandModule, request: unknown, parent: Context, profile: string, statusline: boolean): Promise<ProfileOutcome> {
  const io = createTestIO({ stdoutIsTTY: false, stderrIsTTY: false, width: parent.io.width });
  const ctx = parent.child({ profile, allProfiles: false, profiles: undefined, json: !statusline, jq: undefined, csv: false, patient: true }, io, profileEnv(parent.env));
  // One --timeout for the whole run: every profile ends a little before the fleet's deadline, so a
  // profile that hangs fails in its own row and the others are still shown.
  ctx.endBefore(parent, fleetMargin(parent));
  // The balance record names the account; commands whose result does not hold it ask for it beside their run.
  const inResult = module.fleetRow?.balance;
  const balanceAside = statusline || inResult ? undefined : accountBalance(ctx);
  const whose = async (result: unknown) => ({ account: await accountOfBalance(ctx, inResult ? inResult(result) : await balanceAside), key: await keyOf(ctx) });
  try {
    await module.run(request, ctx);
    if (statusline) return { profile, ok: true, line: io.stdout.trim(), exitCode: 0 };
    const result = parseJson(io.stdout);
    return { profile, ok: true, result, exitCode: 0, ...(await whose(result)) };
  } catch (error) {
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    // A failed check still printed its document: the profile's result is there, with exit 5.
    if (error instanceof CheckFailed && io.stdout.trim()) {
      const result = parseJson(io.stdout);
      return { profile, ok: true, result, exitCode: 5, ...(await whose(result)) };
    }
    const text = errorText(error, parent.secrets);
    return { profile, ok: false, error: { kind: text.kind, message: text.message, ...(text.status !== undefined ? { status: text.status } : {}) }, exitCode: error instanceof TallyError ? error.exitCode : 1 };
  } finally {
    // What the profile's run said on stderr (a --fail-open skip, a warning) is said for it, never lost.
    for (const line of io.stderr.split('\n').filter((l) => l.trim())) parent.io.err(`${profile}: ${line}\n`);
    await ctx.dispose();
  }
}

async function accountBalance(ctx: Context): Promise<unknown> {
  try {
    // The run's own figure: a command that asks for the balance too asks the gateway once.
    const { balanceOf } = await import('./figures/balance.js');
    return (await balanceOf(ctx)).raw;
  } catch {
    return undefined;
  }
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
