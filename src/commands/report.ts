// tally report: the digest of a period for the people who read it: the terminal, --markdown for a
// pull request or chat, --html FILE for a manager (one self-contained page), --json; --send NAME
// posts it to a notify destination once per period however often cron runs it (--force: again).
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { emit } from '../output/emit.js';
import type { FailedProfile } from '../figures/report-fleet.js';

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
  /** --by group: the fleet's spend per group of profiles (tally group), each account once. */
  by?: string;
}

export const flags = declareFlags({
  period: { kind: 'value', value: 'period', help: 'the length of the period reported on: the last complete week or month, unless --month or --since names one', choices: ['week', 'month'], default: 'week' },
  last: { kind: 'switch', help: 'the last complete week or month (the default)' },
  month: { kind: 'value', value: 'YYYY-MM', help: 'that month' },
  since: { kind: 'value', value: 'time', help: 'a period of your own from this time (with --until; the same length before it is compared)' },
  until: { kind: 'value', value: 'time', help: 'the end of that period' },
  utcOffset: { kind: 'value', value: '+HH:MM', help: "the gateway's day grid (default: inferred from usage)" },
  markdown: { kind: 'switch', help: 'GitHub-flavoured Markdown (a pull request, a step summary, chat)' },
  html: { kind: 'value', value: 'file', help: 'write one self-contained HTML page (inline charts, no script, no external request)' },
  send: { kind: 'value', value: 'name', help: 'post it to this notify destination, once per period (tally notify add)' },
  force: { kind: 'switch', help: 'with --send: send again though this period was sent' },
  by: { kind: 'value', value: 'dimension', help: 'with --all-profiles: the spend per group of profiles too (tally group), each account once, the unattributed kept', choices: ['group'] },
});

/** The period (one way of naming it), and how the report goes out: printed, Markdown, an HTML file, sent. */
export function parse(options: FlagValues<typeof flags>, line: CommandLine): ReportOptions {
  const named = [options.last && '--last', options.month !== undefined && '--month', (options.since !== undefined || options.until !== undefined) && '--since/--until'].filter(Boolean);
  if (named.length > 1) throw new UsageError(`${named.join(' and ')} each name the period; give one of them`);
  if (line.given('period') && (options.month !== undefined || options.since !== undefined || options.until !== undefined)) throw new UsageError('--period goes with --last (the last complete week or month); --month and --since/--until name the period themselves');
  if (options.markdown && (line.output.json || options.html !== undefined)) throw new UsageError(`--markdown and --${line.output.json ? 'json' : 'html'} each print the whole report; choose one`);
  if (options.force && options.send === undefined) throw new UsageError('--force goes with --send');
  if (line.profiles && options.send !== undefined) throw new UsageError('--send posts one profile\'s report (to that profile\'s destination); run it per profile');
  if (options.by === 'group' && !line.profiles) throw new UsageError('--by group adds up the profiles of a fleet: add --all-profiles (or --profiles P,Q)');
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
  const { reportMemory, sendReport } = await import('../notify/report-send.js');
  const memory = destination && (await reportMemory(ctx, (await ctx.settings()).profile));
  memory?.read();
  const many = fleet ? await (await import('../figures/report-fleet.js')).loadFleetReports(ctx, options, options.by === 'group' ? (await ctx.store()).groups() : undefined) : undefined;
  const items = many?.items ?? [{ report: await loadReport(ctx, options), profile: (await ctx.settings()).profile }];
  const failed = many?.failed ?? [];
  const first = items[0]!;
  if (options.html !== undefined) {
    const [{ reportHtml }, { writeReportFile }] = await Promise.all([import('../output/report-html.js'), import('../settings/report-file.js')]);
    writeReportFile(options.html, reportHtml(items, many?.totals, failed, many?.groups), { flag: '--html', mode: 0o644, scrub: (t) => ctx.secrets.scrub(t) });
    ctx.note(`wrote the report for the ${view.periodLabel(first.report)} to ${options.html}`);
  }
  if (destination && memory) await sendReport(ctx, first.report, first.profile, destination, memory, options.force === true);
  if ((options.html !== undefined || destination) && !ctx.options.json && !options.markdown) return fleetOutcome(failed);
  if (!many) {
    await emit(ctx, {
      json: () => view.reportJson(first.report, first.profile),
      human: () => (options.markdown ? view.reportMarkdown(first.report, first.profile, ctx.options.exact) : view.renderReport(first.report, first.profile, ctx)),
    });
    return;
  }
  await emit(ctx, { json: () => view.fleetReportsJson(many), human: () => view.renderFleetReports(many, ctx, options.markdown === true) });
  return fleetOutcome(failed);
}

/** A profile that failed makes the run fail with its exit code (as every fleet command), after the others were shown. */
async function fleetOutcome(failed: FailedProfile[]): Promise<void> {
  const first = failed.find((f) => f.exitCode !== 0);
  if (!first) return;
  const { FleetFailed } = await import('../across-profiles.js');
  throw new FleetFailed(`profile "${first.profile}" failed: ${first.error.message}`, first.exitCode);
}
