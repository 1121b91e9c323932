// tally run --max-spend AMOUNT -- CMD [ARGS…]: runs CMD under a spending limit. A mark is taken
// first; CMD runs with its stdin, stdout, stderr and environment untouched while tally reads
// what the run has spent (the per-call log as calls land, else the counters) every --poll
// seconds, within the gateway's rate limit. Past --max-spend: SIGTERM to CMD and what it started,
// SIGKILL after --grace, exit 5. Otherwise tally exits with CMD's own code. Every word tally says
// goes to stderr, the end's summary also to the GitHub step summary and --json-summary FILE.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { NotWatched, QuietExit, TallyError, UsageError, isUnreachable } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { isoInZone } from '../domain/zone.js';
import { didYouMean } from '../domain/suggest.js';
import { parseAmount } from '../flags/amount-flags.js';
import type { Decimal } from '../domain/money.js';
import { wholeNumber } from '../flags/flag-values.js';
import { settleRunEnd, watchRunSpend } from '../loops/run-limit.js';
import { type RunReading, type RunScope, RunSpendWatch, startRun, unreadStart } from '../figures/run-watch.js';
import { type RunLimits, type RunSummary, endText, leftRunningText, runSummaryJson, startText, summaryMarkdown, unreachableText } from '../output/run.js';
import { NotStarted, Supervised, exitCodeOf } from '../run/supervise.js';

const SCOPES: readonly RunScope[] = ['key', 'account'];

export const flags = declareFlags({
  maxSpend: { kind: 'value', value: 'amount', help: 'stop the command when the run has spent more than this (yuan)', required: true },
  warnSpend: { kind: 'value', value: 'amount', help: 'say so (and alert with --notify) when the run has spent more than this' },
  scope: { kind: 'value', value: 'whose', help: "whose spend counts: key (this key's own; the default for an API key) or account (every key's)" },
  poll: { kind: 'value', value: 'seconds', help: 'read the spend this often (no faster than the rate limit allows)', default: '5' },
  grace: { kind: 'value', value: 'seconds', help: 'after SIGTERM, how long the command has to end before SIGKILL', default: '10' },
  settle: { kind: 'value', value: 'seconds', help: "after the run's last process ended, read the gateway until its figures settle, for at most this long (its log books calls late)", default: '30' },
  failClosed: { kind: 'switch', help: 'stop the command (exit 4) when the spend cannot be read; by default it runs on, unwatched, with a warning' },
  notify: { kind: 'variadic', value: 'name', help: 'alert these destinations (tally notify) once at --warn-spend and once at the stop' },
  jsonSummary: { kind: 'value', value: 'file', help: 'write the run summary as JSON (tally schema run) to this file' },
  proxy: { kind: 'switch', help: "point the command's OpenAI and Anthropic SDKs at a spending firewall started for the run (tally proxy): a call past --max-spend is refused before it is made, then the command is stopped" },
});

export function configure(command: Command): void {
  command
    .argument('<command...>', 'the command to run and its arguments, after -- (tally run --max-spend 5 -- npm test)');
}

/** What `tally run` was asked: the command, its limits, whose spend, how often it is read, and what is said where. */
export interface RunRequest {
  program: string;
  programArgs: string[];
  max: Decimal;
  warn: Decimal | undefined;
  /** Whose spend counts, when named (else the credential decides: a key's own, or the account's). */
  scope: RunScope | undefined;
  poll: number;
  grace: number;
  /** Seconds to wait at most for the gateway's figures to settle after the run's processes ended. */
  settle: number;
  failClosed: boolean;
  notify: string[];
  jsonSummary: string | undefined;
  /** Calls go through a spending firewall started for the run (the command's SDKs pointed at it). */
  proxy: boolean;
}

export function parse(options: FlagValues<typeof flags>, line: CommandLine): RunRequest {
  if (line.output.json || line.output.jq) throw new UsageError('stdout is the command\'s own under tally run: --json-summary FILE writes the run summary as JSON');
  const max = parseAmount(options.maxSpend, '--max-spend');
  const warn = options.warnSpend === undefined ? undefined : parseAmount(options.warnSpend, '--warn-spend');
  if (warn && warn.gte(max)) throw new UsageError(`--warn-spend ${options.warnSpend} is not below --max-spend ${options.maxSpend}: the warning would come with the stop`);
  if (options.scope !== undefined && !(SCOPES as readonly string[]).includes(options.scope)) {
    const hint = didYouMean(options.scope, SCOPES);
    throw new UsageError(`--scope "${options.scope}" is not key (this key's own spend) or account (every key's)`, hint ? { hint } : {});
  }
  const poll = wholeNumber(options.poll, '--poll', 1, 3600);
  const grace = wholeNumber(options.grace, '--grace', 0, 3600);
  const settle = wholeNumber(options.settle ?? '30', '--settle', 0, 3600);
  const [program, ...programArgs] = line.args;
  if (program === undefined || program === '') throw new UsageError('name the command to run after --: tally run --max-spend 5 -- npm test');
  return { program, programArgs, max, warn, scope: options.scope as RunScope | undefined, poll, grace, settle, failClosed: options.failClosed === true, notify: options.notify ?? [], jsonSummary: options.jsonSummary, proxy: options.proxy === true };
}

export async function run(request: RunRequest, ctx: Context): Promise<void> {
  const { max, warn, poll, grace, program, programArgs } = request;

  const [settings, client, gateway] = await Promise.all([ctx.settings(), ctx.client(), ctx.gatewayIdentity()]);
  const scope = request.scope ?? (client.credential?.kind === 'api-key' ? 'key' : 'account');
  const destinations = request.notify.length ? await (await import('../notify/destinations.js')).destinationsNamed(ctx, request.notify) : [];
  const limits: RunLimits = { command: program.replace(/.*[\\/]/, ''), scope, max, warn, pollSeconds: poll, graceSeconds: grace };
  // The run lasts as long as its command: --timeout bounds each reading, not the run; Ctrl-C is the command's.
  ctx.runUntilInterrupted();
  ctx.signalsHeld = true;

  const startedAt = Math.floor(ctx.now() / 1000);
  let start;
  try {
    ctx.renewDeadline();
    start = await startRun(ctx, scope);
  } catch (error) {
    if (!(error instanceof TallyError) || !isUnreachable(error)) throw error;
    const why = ctx.secrets.scrubMessage(error.message);
    if (request.failClosed) throw new NotWatched(`the spend cannot be read (${why}); --fail-closed: ${limits.command} was not started`);
    ctx.note(`tally run: the spend cannot be read at the start (${why}): ${limits.command} runs, and the run's spend is counted from when the gateway answers`);
    start = unreadStart(ctx, scope);
  }
  const watch = new RunSpendWatch(start);

  // With --proxy the command's SDKs go through a firewall started for the run: a call past the limit is refused before it is made.
  const firewall = request.proxy ? await (await import('../proxy/run-proxy.js')).startRunProxy(ctx, client, max) : undefined;

  let child: Supervised;
  try {
    child = await Supervised.start(program, programArgs, { mode: ctx.io.stdinIsTTY ? 'tree' : 'group', env: firewall ? firewall.env(ctx.env) : ctx.env });
  } catch (error) {
    await firewall?.close();
    if (!(error instanceof NotStarted)) throw error;
    ctx.note(`tally run: ${error.message}`);
    throw new QuietExit(error.exitCode, error.message);
  }
  // Said once the command runs (a command that is not found never "runs").
  ctx.note(startText(limits, start.currency));
  child.forwardSignals((signal) => ctx.debug(`tally run: ${signal} ${child.mode === 'group' || !['SIGINT', 'SIGQUIT'].includes(signal) ? 'passed on to' : 'reached'} ${limits.command}`));

  const alert = async (level: 'warn' | 'fail', message: string, last: RunReading | undefined) => {
    if (destinations.length === 0 || !last) return;
    const { deliver } = await import('../notify/send.js');
    const now = Math.floor(ctx.now() / 1000);
    const limit = level === 'fail' ? max : warn!;
    for (const destination of destinations) {
      await deliver(ctx, destination, { profile: settings.profile, check: level === 'fail' ? 'run:max-spend' : 'run:warn-spend', level, actual: last.spent.toFixed(), limit: limit.toFixed(), unit: last.currency ?? 'CNY', message, at: isoInZone(now, ctx.zone), scope }).catch((error: Error) =>
        ctx.warn(`the alert to ${destination.kind} "${destination.name}" was not delivered (${error.message})`),
      );
    }
  };

  // While the command runs: the spend read, warned of, and the command stopped past the limit (loops/run-limit.ts).
  const setup = { limits, max, warn, poll, grace, failClosed: request.failClosed, child, watch, rateLimit: client.rateLimit, ...(firewall ? { firewall } : {}), alert };
  const seen = await watchRunSpend(ctx, setup);
  const { outcome } = seen;
  const outcomeOfChild = await child.exited;
  // What the command started and left running (a daemon, a setsid child) is the run's: stopped before tally ends.
  let stoppedAfterEnd = 0;
  if (outcome === 'finished' && child.anyAlive()) {
    const left = child.processes();
    stoppedAfterEnd = left.length;
    ctx.note(leftRunningText(limits, left.length, grace));
    await child.stop(grace * 1000, (ms) => ctx.sleep(ms).catch(() => undefined));
  }
  // The firewall stops after the calls in flight (their cost counted), once the command's processes are gone.
  await firewall?.close();
  const unreachable = child.unreachable();
  for (const process of unreachable) ctx.note(unreachableText(process));
  child.release();

  // The calls of the run's last moments, those of a stop's grace included: read until the gateway's figures settle.
  const end = await settleRunEnd(ctx, setup, seen, request.settle);
  const endedAt = Math.floor(ctx.now() / 1000);
  const tallyExit = outcome === 'stopped' ? 5 : outcome === 'stopped_unwatched' ? 4 : exitCodeOf(outcomeOfChild);
  const summary = runSummaryJson({ limits, max, warn, scope, child: outcomeOfChild, tallyExit, seen: end, startCurrency: start.currency, source: watch.source, unreachable, stoppedAfterEnd, refused: firewall ? firewall.refused() : null, startedAt, endedAt, zone: ctx.zone, profile: settings.profile, gateway: gateway.href });
  await writeSummaries(ctx, summary, request.jsonSummary);
  if (summary.outcome === 'stopped_unwatched') throw new NotWatched(`${limits.command} was stopped: the spend could not be read (--fail-closed)`);
  throw new QuietExit(tallyExit);
}

/** The end: one line on stderr, the GitHub step summary under Actions, and the JSON file when asked. */
async function writeSummaries(ctx: Context, summary: RunSummary, jsonFile: string | undefined): Promise<void> {
  ctx.note(endText(summary));
  const stepSummary = ctx.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) {
    const { appendToFile } = await import('../settings/files.js');
    try {
      appendToFile(stepSummary, ctx.secrets.scrub(`${summaryMarkdown(summary)}\n`));
    } catch (error) {
      ctx.warn(`could not append to $GITHUB_STEP_SUMMARY (${(error as Error).message})`);
    }
  }
  if (jsonFile !== undefined) {
    const { writeReportFile } = await import('../settings/report-file.js');
    try {
      writeReportFile(jsonFile, `${JSON.stringify(summary, null, 2)}\n`, { flag: '--json-summary', mode: 0o644, scrub: (text) => ctx.secrets.scrub(text) });
    } catch (error) {
      // The command has run: its exit code stands; the file that could not be written is said.
      ctx.warn((error as Error).message);
    }
  }
}
