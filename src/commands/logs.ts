// tally logs: the per-call log (GET /v1/open/logs), whatever fields it has.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import type { CommandLine } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { instantWindow } from '../figures/usage-series.js';
import { emit, formatCsv, writeJson } from '../output/emit.js';
import { describeWindow } from '../output/window-text.js';
import { DEFAULT_MAX_PAGES, type PagedRecords, fetchAllPages, parseParams } from '../figures/records.js';
import { wholeNumber } from '../flags/flag-values.js';
import { windowFlags } from '../flags/options.js';
import { DEFAULT_FOLLOW_SECONDS, followLog } from '../loops/follow.js';
import { ndjsonWriter, recordsCsvOf, recordsJson, renderRecords } from '../output/records.js';

export interface LogsOptions {
  since?: string;
  until?: string;
  utcOffset?: string;
  param?: string[];
  all?: boolean;
  maxPages?: string;
  ndjson?: boolean;
  resume?: string;
  follow?: boolean;
  interval?: string;
}

export const flags = declareFlags({
  ...windowFlags('the last 7 days, today included; a span counts back from now', 'now'),
  param: { kind: 'list', value: 'key=value', help: 'pass a query parameter through (repeatable)' },
  all: { kind: 'switch', help: 'follow the continuation cursor through every page' },
  maxPages: { kind: 'value', value: 'n', help: `with --all: stop with an error after this many pages (default ${DEFAULT_MAX_PAGES})` },
  ndjson: { kind: 'switch', help: 'one JSON record per line, written as pages arrive' },
  resume: { kind: 'value', value: 'cursor', help: 'with --all: continue where a run that stopped left off (it printed the cursor)' },
  follow: { kind: 'switch', help: 'print calls as they land until Ctrl-C (a live table on a terminal, NDJSON on a pipe); --since starts earlier' },
  interval: { kind: 'value', value: 'seconds', help: `with --follow: at least this long between polls (default ${DEFAULT_FOLLOW_SECONDS}; longer when the gateway's rate limit asks)` },
});

/** What `tally logs` was asked: pages of the log over a window, or calls as they land (--follow). */
export type LogsRequest = { kind: 'pages'; options: LogsOptions; maxPages: number; query: Record<string, string> } | { kind: 'follow'; options: LogsOptions; interval: number; query: Record<string, string> };

/** The flags as a request: the paging flags with --all, the following flags with --follow, numbers and parameters checked. */
export function parse(options: FlagValues<typeof flags>, line: CommandLine): LogsRequest {
  if (options.ndjson && (line.output.json || line.output.csv)) throw new UsageError('--ndjson cannot be combined with --json or --csv');
  if (options.maxPages !== undefined && !options.all) throw new UsageError('--max-pages goes with --all');
  if (options.resume !== undefined && !options.all) throw new UsageError('--resume goes with --all (it continues an export that stopped)');
  if (options.interval !== undefined && !options.follow) throw new UsageError('--interval goes with --follow');
  const query = parseParams(options.param);
  if (options.follow) {
    for (const [flag, set] of [['--all', options.all], ['--until', options.until], ['--resume', options.resume], ['--max-pages', options.maxPages], ['--csv', line.output.csv]] as const) {
      if (set) throw new UsageError(`${flag} does not go with --follow (it prints calls as they land, NDJSON on a pipe or with --ndjson)`);
    }
    return { kind: 'follow', options, interval: options.interval === undefined ? DEFAULT_FOLLOW_SECONDS : wholeNumber(options.interval, '--interval', 1, 3600), query };
  }
  return { kind: 'pages', options, maxPages: options.maxPages === undefined ? DEFAULT_MAX_PAGES : wholeNumber(options.maxPages, '--max-pages', 1), query };
}

export async function run(request: LogsRequest, ctx: Context): Promise<void> {
  const options = request.options;
  if (request.kind === 'follow') return follow(ctx, options, request.interval, request.query);
  // A long export is bound by --timeout only when one is given: waiting for the rate limit's
  // window is not a hang (each request keeps its own bound of --timeout seconds).
  if (options.all && !ctx.options.timeoutGiven) ctx.withoutDeadline();
  const { maxPages, query } = request;
  // Entries are exact instants: the window is exactly what was asked (its days on the gateway's grid).
  const { window: exact, time } = await instantWindow(ctx, options);
  const client = await ctx.client();
  const ndjson = options.ndjson ? ndjsonWriter(ctx) : undefined;
  let found: PagedRecords;
  try {
    found = await fetchAllPages(ctx, client, '/v1/open/logs', { start: String(exact.start), end: String(exact.end), ...query }, {
      all: options.all === true,
      maxPages,
      onPage: ndjson?.write,
      noun: 'log entries',
      resume: options.resume,
      keepPartial: true,
    });
  } finally {
    ndjson?.end();
  }
  // An export that could not finish keeps what it fetched (printed below), says where to resume, and ends with its error.
  const stopped = found.stopped;
  // Stopped by --timeout: what was fetched is still written (a moment's grace for it). By Ctrl-C: the document is written at once, below.
  if (stopped && ctx.signal.aborted && !ctx.interrupt.aborted) ctx.graceAfterDeadline();
  const endStopped = () => {
    if (!stopped) return;
    ctx.warn(`the export stopped before page ${stopped.page} (${stopped.error.message}); ${found.records.length || 'the'} records so far are written; continue with --all --resume ${stopped.resume}`);
    throw stopped.error;
  };
  if (options.ndjson) {
    endStopped();
    // NDJSON holds records only: that the list is cut short goes to stderr.
    if (found.more) ctx.note(`only the first page was written; more records exist in this window (${found.more})`);
    return;
  }
  if (stopped && ctx.interrupt.aborted) {
    // Interrupted: the records fetched so far are written as they are (the document says complete: false), then the run ends as interrupted.
    if (ctx.options.json) await writeJson(ctx, recordsJson(found, exact, time.zone), 2);
    else if (ctx.options.csv) ctx.io.out(formatCsv(recordsCsvOf(ctx, found, { timed: true }), ctx.io.stdoutIsTTY));
    endStopped();
  }
  await emit(ctx, {
    json: () => recordsJson(found, exact, time.zone),
    csv: () => recordsCsvOf(ctx, found, { timed: true }),
    human: () => renderRecords(found.records, ctx, { amounts: 'per-call', zone: time.zone, more: found.more, scope: found.scope, notes: [describeWindow(exact, time.zone), `times shown in ${time.zone.label}`] }),
  });
  endStopped();
}

/** --follow: from --since (default now) until Ctrl-C. */
async function follow(ctx: Context, options: LogsOptions, interval: number, query: Record<string, string>): Promise<void> {
  const since = options.since === undefined ? Math.floor(ctx.now() / 1000) : (await instantWindow(ctx, { since: options.since, utcOffset: options.utcOffset })).window.start;
  // Following goes on until Ctrl-C; each poll has the whole --timeout.
  await followLog(ctx, { since, interval, query, ndjson: options.ndjson === true || ctx.options.json });
}
