// tally audit: the charges of a window against the catalog's prices, per model and day (the
// usage by model) and per call (the log). Exit 0 when everything is explained within the
// tolerance; with --fail, 5 when a charge is above the prices or a failed call was charged;
// 4 when the charges or the prices could not be read.
import type { Context } from '../context.js';
import { TallyError, UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { windowFlags } from '../flags/options.js';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import { parseThreshold } from '../flags/amount-flags.js';
import { DEFAULT_TOLERANCE, type Tolerance } from '../domain/audit.js';
import { emit } from '../output/emit.js';
import type { WindowOptions } from '../figures/day-grid.js';

export const flags = declareFlags({
  ...windowFlags('the last 7 days, today included'),
  tolerance: { kind: 'list', value: 'share%|amount', help: 'how far a charge may be from the prices before it departs: a share (0.5%) or an amount (0.0001); the other keeps its default (0.5% and ¥0.0001)' },
  fail: { kind: 'switch', help: 'exit 5 when a charge is not explained (above the prices, or a failed call charged): a CI or cron gate' },
  markdown: { kind: 'switch', help: 'print the Markdown summary (for a step summary or a pull-request comment)' },
});

/** What `tally audit` was asked: the window, how far a charge may depart, and how it answers. */
export interface AuditRequest extends WindowOptions {
  tolerance: Tolerance;
  fail: boolean;
  markdown: boolean;
}

export function parse(options: FlagValues<typeof flags>, line: CommandLine): AuditRequest {
  if (options.markdown && (line.output.json || line.output.csv)) throw new UsageError('--markdown prints the summary as Markdown; --json and --csv print the whole audit: choose one');
  const tolerance: Tolerance = { ...DEFAULT_TOLERANCE };
  for (const text of options.tolerance ?? []) {
    const t = parseThreshold(text, '--tolerance');
    if (t.kind === 'percent') tolerance.percent = t.value;
    else tolerance.amount = t.value;
  }
  const { since, until, month, last, utcOffset } = options;
  return { since, until, month, last, utcOffset, tolerance, fail: options.fail === true, markdown: options.markdown === true };
}

export async function run(request: AuditRequest, ctx: Context): Promise<void> {
  const { tolerance, ...options } = request;
  const [{ loadAudit }, view] = await Promise.all([import('../figures/audit.js'), import('../output/audit.js')]);
  let audit;
  try {
    audit = await loadAudit(ctx, { ...options, tolerance });
  } catch (error) {
    // The charges or the prices could not be read: nothing is audited (exit 4), never "clean".
    if (error instanceof TallyError && (error.kind === 'service' || error.kind === 'network' || error.kind === 'timeout')) throw new (await import('../errors.js')).NotAudited(`the audit could not be done: ${error.message}`);
    throw error;
  }
  await emit(ctx, { json: () => view.auditJson(audit), csv: () => view.auditCsv(audit), human: () => (options.markdown ? view.auditMarkdown(audit) : view.renderAudit(audit, ctx)) });
  if (options.fail && audit.unexplained > 0) {
    const { QuietExit } = await import('../errors.js');
    throw new QuietExit(5);
  }
}
