// tally report: the digest of a period for the people who read it: the terminal, --markdown for a
// pull request or chat, --html FILE for a manager (one self-contained page), --json; --send NAME
// posts it to a notify destination once per period however often cron runs it (--force: again).
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import type { Report } from '../figures/report.js';

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
    .addOption(new Option('--period <period>', 'the period --last reports on').choices(['week', 'month']).default('week'))
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

export async function run(raw: Record<string, unknown>, ctx: Context, _args: string[] = [], given: (name: string) => boolean = () => false): Promise<void> {
  const options = raw as ReportOptions;
  const named = [options.last && '--last', options.month !== undefined && '--month', (options.since !== undefined || options.until !== undefined) && '--since/--until'].filter(Boolean);
  if (named.length > 1) throw new UsageError(`${named.join(' and ')} each name the period; give one of them`);
  if (given('period') && (options.month !== undefined || options.since !== undefined || options.until !== undefined)) throw new UsageError('--period goes with --last (the last complete week or month); --month and --since/--until name the period themselves');
  if (options.markdown && (ctx.options.json || options.html !== undefined)) throw new UsageError(`--markdown and --${ctx.options.json ? 'json' : 'html'} each print the whole report; choose one`);
  if (options.force && options.send === undefined) throw new UsageError('--force goes with --send');
  const [{ loadReport }, view, settings] = await Promise.all([import('../figures/report.js'), import('../output/report.js'), ctx.settings()]);
  // A destination that is not stored is exit 2 before any request.
  const destination = options.send === undefined ? undefined : (await (await import('../notify/destinations.js')).destinationsNamed(ctx, [options.send]))[0]!;
  const report = await loadReport(ctx, options);
  const profile = settings.profile;
  if (options.html !== undefined) {
    const [{ reportHtml }, { writeReportFile }] = await Promise.all([import('../output/report-html.js'), import('../settings/report-file.js')]);
    writeReportFile(options.html, reportHtml(report, profile), { flag: '--html', mode: 0o644 });
    ctx.note(`wrote the report for the ${view.periodLabel(report)} to ${options.html}`);
  }
  if (destination) await send(ctx, report, profile, destination, options.force === true);
  if (options.html !== undefined && !ctx.options.json && !options.markdown) return;
  if (destination && !ctx.options.json && !options.markdown) return;
  await emit(ctx, {
    json: () => view.reportJson(report, profile),
    human: () => (options.markdown ? view.reportMarkdown(report, profile, ctx.options.exact) : view.renderReport(report, profile, ctx)),
  });
}

/** Posts the report once per period and destination: the memory of `check --notify` remembers it. */
async function send(ctx: Context, report: Report, profile: string, destination: import('../notify/send.js').Destination, force: boolean): Promise<void> {
  const [{ alertKey, alertStatePath, readAlertState, writeAlertState }, { withLockFile }, { deliverPayload }, { reportPayload }, { periodLabel }] = await Promise.all([
    import('../settings/alert-state.js'),
    import('../settings/files.js'),
    import('../notify/send.js'),
    import('../notify/report-payloads.js'),
    import('../output/report.js'),
  ]);
  const [client, stateDir] = await Promise.all([ctx.client(), ctx.stateDir()]);
  const path = alertStatePath(stateDir, profile, client.baseUrl, client.credential?.secret);
  const key = alertKey(destination.name, `report:${report.kind}:${report.window.start}:${report.window.end}`);
  await withLockFile(`${path}.lock`, async () => {
    const { state } = readAlertState(path);
    if (state.conditions[key] && !force) {
      ctx.note(`the report for the ${periodLabel(report)} was sent to "${destination.name}" already (--force sends it again)`);
      return;
    }
    await deliverPayload(ctx, destination, reportPayload(destination.kind, report, profile, (text) => ctx.secrets.scrubMessage(text)));
    writeAlertState(path, { conditions: { ...state.conditions, [key]: { level: 'warn', period: report.window.start } } });
    ctx.note(`sent the report for the ${periodLabel(report)} to ${destination.kind} "${destination.name}"`);
  }, { signal: ctx.signal });
}
