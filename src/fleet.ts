// Running one command across profiles (--all-profiles, --profiles a,b): a Context per profile
// (across-profiles.ts: which profiles, whose account), each with its own base URL, credential,
// rate-limit pacing and caches, at most 4 at a time, within one --timeout. Each profile's run is
// the command itself, asked for its JSON document; the fleet view renders one row per profile (and
// a total when every currency agrees), or the envelope {"profiles": [...]}. One profile's failure
// never hides another's result.
import type { Command } from 'commander';
import type { Context } from './context.js';
import { CheckFailed, TallyError, UsageError } from './errors.js';
import { createTestIO } from './io.js';
import { errorText } from './output/error-text.js';
import { parseJson } from './domain/json.js';
import { type ProfileOutcome, at, renderFleet } from './output/fleet.js';
import { AT_ONCE, FleetFailed, accountOfBalance, checkFleetEnvironment, chosenProfiles, fleetMargin, keyOf } from './across-profiles.js';
import { emit } from './output/emit.js';
import { type CommandEntry, type CommandModule, outputOf } from './cli/command.js';

export type { ProfileOutcome };

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

