// tally report: the digest of a period for the people who read it: the terminal, --markdown for a
// pull request or chat, --html FILE for a manager (one self-contained page), --json; --send NAME
// posts it to a notify destination once per period however often cron runs it (--force: again).
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { escapeMarkdown } from '../output/escape.js';
import { emit } from '../output/emit.js';
import type { Report } from '../figures/report.js';
import { Decimal } from '../domain/money.js';

interface ReportOptions {
  period?: string;
  last?: boolean;
  month?: string;
  since?: string;
  until?: string;
  utcOffset?: string;
  markdown?: boolean;
  html?: string;
  send?: string;
  force?: boolean;
}

export function configure(command: Command): void {
  command
    .addOption(new Option('--period <period>', 'the length of the period reported on: the last complete week or month, unless --month or --since names one').choices(['week', 'month']).default('week'))
    .option('--last', 'the last complete week or month (the default)')
    .option('--month <YYYY-MM>', 'that month')
    .option('--since <time>', 'a period of your own from this time (with --until; the same length before it is compared)')
    .option('--until <time>', 'the end of that period')
    .option('--utc-offset <+HH:MM>', "the gateway's day grid (default: inferred from usage)")
    .option('--markdown', 'GitHub-flavoured Markdown (a pull request, a step summary, chat)')
    .option('--html <file>', 'write one self-contained HTML page (inline charts, no script, no external request)')
    .option('--send <name>', 'post it to this notify destination, once per period (tally notify add)')
    .option('--force', 'with --send: send again though this period was sent');
}

/** The period (one way of naming it), and how the report goes out: printed, Markdown, an HTML file, sent. */
export function parse(flags: Record<string, unknown>, line: CommandLine): ReportOptions {
  const options = flags as ReportOptions;
  const named = [options.last && '--last', options.month !== undefined && '--month', (options.since !== undefined || options.until !== undefined) && '--since/--until'].filter(Boolean);
  if (named.length > 1) throw new UsageError(`${named.join(' and ')} each name the period; give one of them`);
  if (line.given('period') && (options.month !== undefined || options.since !== undefined || options.until !== undefined)) throw new UsageError('--period goes with --last (the last complete week or month); --month and --since/--until name the period themselves');
  if (options.markdown && (line.output.json || options.html !== undefined)) throw new UsageError(`--markdown and --${line.output.json ? 'json' : 'html'} each print the whole report; choose one`);
  if (options.force && options.send === undefined) throw new UsageError('--force goes with --send');
  if (line.profiles && options.send !== undefined) throw new UsageError('--send posts one profile\'s report (to that profile\'s destination); run it per profile');
  return options;
}

export async function run(options: ReportOptions, ctx: Context): Promise<void> {
  // A digest asks for many figures at once: a rate limit's window is waited out within --timeout, not a failure.
  ctx.options.patient = true;
  const [{ loadReport }, view] = await Promise.all([import('../figures/report.js'), import('../output/report.js')]);
  const fleet = ctx.options.allProfiles || ctx.options.profiles !== undefined;
  // A destination that is not stored is exit 2 before any request.
  const destination = options.send === undefined ? undefined : (await (await import('../notify/destinations.js')).destinationsNamed(ctx, [options.send]))[0]!;
  // Nor is a report computed that could not be remembered as sent.
  const memory = destination && (await reportMemory(ctx, (await ctx.settings()).profile));
  memory?.read();
  const { items, failed } = fleet ? await fleetReports(ctx, options) : { items: [{ report: await loadReport(ctx, options), profile: (await ctx.settings()).profile, account: undefined }], failed: [] };
  const totals = fleet ? fleetTotals(items) : undefined;
  const first = items[0]!;
  if (options.html !== undefined) {
    const [{ reportHtml }, { writeReportFile }] = await Promise.all([import('../output/report-html.js'), import('../settings/report-file.js')]);
    writeReportFile(options.html, reportHtml(items, totals, failed), { flag: '--html', mode: 0o644, scrub: (t) => ctx.secrets.scrub(t) });
    ctx.note(`wrote the report for the ${view.periodLabel(first.report)} to ${options.html}`);
  }
  if (destination && memory) await send(ctx, first.report, first.profile, destination, memory, options.force === true);
  if ((options.html !== undefined || destination) && !ctx.options.json && !options.markdown) return fleetOutcome(failed);
  if (!totals) {
    await emit(ctx, {
      json: () => view.reportJson(first.report, first.profile),
      human: () => (options.markdown ? view.reportMarkdown(first.report, first.profile, ctx.options.exact) : view.renderReport(first.report, first.profile, ctx)),
    });
    return;
  }
  const { formatAmount } = await import('../output/money.js');
  const totalLine = `Spend of ${totals.accounts} account${totals.accounts === 1 ? '' : 's'}, each counted once: ${formatAmount(totals.current, 'account')} (previous ${formatAmount(totals.previous, 'account')})`;
  await emit(ctx, {
    json: () => ({ profiles: [...items.map((i) => view.reportJson(i.report, i.profile)), ...failed.map((f) => ({ profile: f.profile, error: f.error }))], totals: { accounts: totals.accounts, current: totals.current.toFixed(), previous: totals.previous.toFixed(), change: totals.current.minus(totals.previous).toFixed() } }),
    human: async () => {
      const parts = await Promise.all(items.map((i) => (options.markdown ? view.reportMarkdown(i.report, i.profile, ctx.options.exact) : view.renderReport(i.report, i.profile, ctx))));
      const missing = failed.map((f) => `profile ${f.profile}: not reported (${f.error.message})`);
      if (options.markdown) return `# tally report, ${items.length} profiles\n\n**${totalLine}**\n\n${missing.map((m) => `> ${escapeMarkdown(m)}\n\n`).join('')}${parts.join('\n')}`;
      return `${totalLine}\n${missing.map((m) => `${m}\n`).join('')}\n${parts.join('\n')}`;
    },
  });
  return fleetOutcome(failed);
}

/** A profile that failed makes the run fail with its exit code (as every fleet command), after the others were shown. */
async function fleetOutcome(failed: FailedProfile[]): Promise<void> {
  const first = failed.find((f) => f.exitCode !== 0);
  if (!first) return;
  const { FleetFailed } = await import('../fleet.js');
  throw new FleetFailed(`profile "${first.profile}" failed: ${first.error.message}`, first.exitCode);
}

interface FleetItem {
  report: Report;
  profile: string;
  /** Whose spend the report's total is (an account, or a key), to count each once; undefined: unknown, counted per profile. */
  account: string | undefined;
}

/** Every profile's report, asked for together; a profile that fails (or hangs past --timeout) is said in its own section. */
async function fleetReports(ctx: Context, options: ReportOptions): Promise<{ items: FleetItem[]; failed: FailedProfile[] }> {
  const [{ acrossProfiles, accountOfBalance, keyOf }, { loadReport }] = await Promise.all([import('../fleet.js'), import('../figures/report.js')]);
  const results = await acrossProfiles(ctx, async (profileCtx, profile): Promise<FleetItem> => {
    const report = await loadReport(profileCtx, options);
    // Spend the gateway states as the account's is counted once per account; a key's, once per key (the fleet table's rules).
    const account = report.spendScope === 'key' ? await keyOf(profileCtx) : report.spendScope === 'account' ? await accountOfBalance(profileCtx, report.forecast.balance.raw) : undefined;
    return { report, profile, account };
  });
  const items = results.flatMap((r) => ('value' in r ? [r.value] : []));
  const failed = results.flatMap((r): FailedProfile[] => ('skipped' in r ? [{ profile: r.profile, error: { kind: 'skipped', message: `skipped: ${r.skipped}` }, exitCode: 0 }] : 'error' in r ? [r] : []));
  // Nothing to report: the run ends as its first failed profile did (a device token is exit 3), as every fleet does.
  if (items.length === 0) {
    const { FleetFailed } = await import('../fleet.js');
    throw new FleetFailed(`no profile could be reported on: ${failed.map((o) => `${o.profile} (${o.error.message})`).join('; ')}`, failed.find((o) => o.exitCode !== 0)?.exitCode ?? 2);
  }
  return { items, failed };
}

interface FailedProfile {
  profile: string;
  error: { kind: string; message: string };
  exitCode: number;
}

/** The spend of the period and the one before, each account once (two keys of one account share its spend). */
function fleetTotals(items: FleetItem[]) {
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

/**
 * Where sent reports are remembered (the memory of `check --notify`), written back as it is to
 * know it can be written: one that cannot would have every cron run post the digest again.
 */
async function reportMemory(ctx: Context, profile: string) {
  const [{ alertStatePath, readAlertState, writeAlertState }, client, stateDir] = await Promise.all([import('../settings/alert-state.js'), ctx.client(), ctx.stateDir()]);
  const path = alertStatePath(stateDir, profile, client.baseUrl, client.credential?.secret);
  const read = () => {
    const { state } = readAlertState(path);
    try {
      writeAlertState(path, state);
    } catch (error) {
      throw new UsageError(`the report was not sent: tally could not remember sending it (${(error as Error).message}), so every run would send it again`, { cause: error });
    }
    return state;
  };
  return { path, read, write: writeAlertState };
}

/** Posts the report once per period and destination; the memory is known writable before anything is sent. */
async function send(ctx: Context, report: Report, profile: string, destination: import('../notify/send.js').Destination, memory: Awaited<ReturnType<typeof reportMemory>>, force: boolean): Promise<void> {
  const [{ alertKey }, { withRunLock }, { deliverPayload }, { reportPayload }, { periodLabel }] = await Promise.all([
    import('../settings/alert-state.js'),
    import('../locking.js'),
    import('../notify/send.js'),
    import('../notify/report-payloads.js'),
    import('../output/report.js'),
  ]);
  const key = alertKey(destination.name, `report:${report.kind}:${report.window.start}:${report.window.end}`);
  await withRunLock(ctx, `${memory.path}.lock`, 'the memory of sent reports', async () => {
    const state = memory.read();
    if (state.conditions[key] && !force) {
      ctx.note(`the report for the ${periodLabel(report)} was sent to "${destination.name}" already (--force sends it again)`);
      return;
    }
    await deliverPayload(ctx, destination, reportPayload(destination.kind, report, profile, (text) => ctx.secrets.scrubMessage(text)));
    memory.write(memory.path, { conditions: { ...state.conditions, [key]: { level: 'warn', period: report.window.start } } });
    ctx.note(`sent the report for the ${periodLabel(report)} to ${destination.kind} "${destination.name}"`);
  });
}
