// tally export: the ledger finance reconciles, one row per day (or hour) × model × profile, as
// CSV (a spreadsheet reads its dates as dates) or NDJSON with stable column names. --append FILE
// adds only the periods the file does not hold yet, for a cron job that adds yesterday.
import type { Context } from '../context.js';
import type { CommandLine } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { windowFlags } from '../flags/options.js';
import { type FlagValues, declareFlags } from '../flags/declare.js';
import { emit, formatCsv } from '../output/emit.js';
import { renderLedger, scopeNotes } from '../output/ledger.js';
import { type LedgerRow, ledgerCells, ledgerDocument, ledgerHeader, ledgerText } from '../domain/ledger-format.js';

export interface ExportOptions {
  bucket: string;
  since?: string;
  until?: string;
  month?: string;
  last?: string;
  utcOffset?: string;
  ndjson?: boolean;
  header: boolean;
  append?: string;
  /** --by group: each row says its profile's group (tally group), "unattributed" for none. */
  byGroup?: boolean;
}

export const flags = declareFlags({
  bucket: { kind: 'value', value: 'size', help: 'a row per day or per hour (and model)', choices: ['day', 'hour'], default: 'day' },
  ...windowFlags('the last 7 complete days (today is not over yet)'),
  ndjson: { kind: 'switch', help: 'one JSON object per row (schema: tally schema export)' },
  header: { kind: 'negated', help: 'CSV without its header line' },
  append: { kind: 'value', value: 'file', help: 'add the rows of ended periods to this CSV or NDJSON file, leaving out the periods it already holds for the profile and gateway' },
  by: { kind: 'value', value: 'dimension', help: "add a column: group, each row's profile's group (tally group; \"unattributed\" for none)", choices: ['group'] },
});

/** The flags as the export asked for: its format's flags checked against the one the global flags chose. */
export function parse(options: FlagValues<typeof flags>, line: CommandLine): ExportOptions {
  const csv = line.output.csv;
  if (options.ndjson && (csv || line.output.json)) throw new UsageError(`--ndjson and --${csv ? 'csv' : 'json'} each choose the format; give one of them`);
  if (options.append !== undefined && !csv && !options.ndjson) throw new UsageError('--append needs the file\'s format: --csv or --ndjson');
  if (!options.header && !csv) throw new UsageError('--no-header goes with --csv');
  const byGroup = options.by === 'group';
  const { bucket, since, until, month, last, utcOffset, ndjson, header, append } = options;
  return { bucket, since, until, month, last, utcOffset, ndjson, header, ...(append === undefined ? {} : { append }), ...(byGroup ? { byGroup } : {}) };
}

export async function run(options: ExportOptions, ctx: Context): Promise<void> {
  const csv = ctx.options.csv === true;
  const [{ loadLedgers }, appending] = await Promise.all([
    import('../figures/ledgers.js'),
    options.append === undefined ? undefined : import('../figures/ledger-append.js'),
  ]);
  // The file is read (and refused, untouched) before the gateway is asked anything.
  const ledgerFile = appending && appending.openLedger(options.append!, options.ndjson ? 'ndjson' : 'csv', options.header, options.byGroup === true);
  const fleet = ctx.options.allProfiles || ctx.options.profiles !== undefined;
  // A ledger asks period by period: a rate limit's window is waited out (within --timeout when given).
  ctx.options.patient = true;
  if (!fleet && !ctx.options.timeoutGiven) ctx.withoutDeadline();
  const { exported, partial } = await loadLedgers(ctx, options, ledgerFile);
  const ledgers = exported.map((r) => r.ledger);
  // Whose spend each profile's rows are, on stderr (the file stays clean), as for one profile.
  const sayScopes = async () => {
    for (const { profile, ledger } of exported) for (const line of await scopeNotes(ledger, profile)) ctx.note(line);
  };
  // --by group: each row says its profile's group, in the ledger's group column (domain/ledger-format.ts), in every format.
  const columns = options.byGroup ? 'grouped' : 'current';
  const rows = options.byGroup ? await withGroups(ctx, ledgers.flatMap((l) => l.rows)) : ledgers.flatMap((l) => l.rows);
  if (ledgers.some((l) => l.incomplete)) ctx.warn('a period had more records than tally fetched: its rows are partial');
  if (ledgerFile) {
    const added = await appending!.appendLedger(ctx, ledgerFile.file, rows, ledgers[0]?.bucket ?? 'day', options.byGroup === true);
    const skipped = ledgers.reduce((a, l) => a + l.skipped, 0) + added.raced;
    const running = [...new Set(ledgers.flatMap((l) => l.running))];
    const parts = [`added ${added.rows} row${added.rows === 1 ? '' : 's'} to ${options.append}`];
    if (skipped) parts.push(`${skipped} period${skipped === 1 ? ' was' : 's were'} there already`);
    if (running.length) parts.push(`left ${running.join(', ')} for a later run (not ended yet)`);
    ctx.note(parts.join('; '));
    await sayScopes();
    if (partial.length) ctx.warn(`${options.append} holds ${partial.join(', ')} as a period that had not ended (complete=false): those rows are not final, and the period is not added again; remove its rows and run again to add it whole`);
    return;
  }
  await sayScopes();
  const header = ledgerHeader(columns);
  const table = { header, rows: rows.map((r) => ledgerCells(r, columns)) };
  if (options.ndjson) {
    ctx.io.out(ledgerText(rows, 'ndjson', { columns }));
    return;
  }
  if (csv && !options.header) {
    const text = formatCsv({ header: [], rows: table.rows }, ctx.io.stdoutIsTTY);
    ctx.io.out(text.slice(2));
    return;
  }
  await emit(ctx, {
    json: () => ({ bucket: ledgers[0]?.bucket ?? 'day', columns: header, rows: rows.map((r) => ledgerDocument(r, columns)) }),
    csv: () => table,
    human: () => renderLedger(rows, ledgers, ctx, options.byGroup === true),
  });
}

/** The rows, each with its profile's group (tally group; "unattributed" for none). */
async function withGroups(ctx: Context, rows: LedgerRow[]): Promise<LedgerRow[]> {
  const [groups, { UNATTRIBUTED, groupOf }] = await Promise.all([ctx.store().then((store) => store.groups()), import('../domain/groups.js')]);
  return rows.map((r) => ({ ...r, group: groupOf(r.profile, groups) ?? UNATTRIBUTED }));
}
