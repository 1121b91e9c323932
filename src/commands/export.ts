// tally export: the ledger finance reconciles, one row per day (or hour) × model × profile, as
// CSV (a spreadsheet reads its dates as dates) or NDJSON with stable column names. --append FILE
// adds only the periods the file does not hold yet, for a cron job that adds yesterday.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import type { CommandLine } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { addWindowOptions } from '../flags/options.js';
import { emit, formatCsv } from '../output/emit.js';
import type { Ledger } from '../figures/ledger.js';
import { renderLedger } from '../output/ledger.js';
import { ledgerCells, ledgerText } from '../domain/ledger-format.js';

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
}

export function configure(command: Command): void {
  command.addOption(new Option('--bucket <size>', 'a row per day or per hour (and model)').choices(['day', 'hour']).default('day'));
  addWindowOptions(command, 'the last 7 complete days (today is not over yet)');
  command
    .option('--ndjson', 'one JSON object per row (schema: tally schema export)')
    .option('--no-header', 'CSV without its header line')
    .option('--append <file>', 'add the rows of ended periods to this CSV or NDJSON file, leaving out the periods it already holds for the profile and gateway');
}

/** The flags as the export asked for: its format's flags checked against the one the global flags chose. */
export function parse(flags: Record<string, unknown>, line: CommandLine): ExportOptions {
  const options = flags as unknown as ExportOptions;
  const csv = line.output.csv;
  if (options.ndjson && (csv || line.output.json)) throw new UsageError(`--ndjson and --${csv ? 'csv' : 'json'} each choose the format; give one of them`);
  if (options.append !== undefined && !csv && !options.ndjson) throw new UsageError('--append needs the file\'s format: --csv or --ndjson');
  if (!options.header && !csv) throw new UsageError('--no-header goes with --csv');
  const { bucket, since, until, month, last, utcOffset, ndjson, header, append } = options;
  return { bucket, since, until, month, last, utcOffset, ndjson, header, append };
}

export async function run(options: ExportOptions, ctx: Context): Promise<void> {
  const csv = ctx.options.csv === true;
  const [{ loadLedger, LEDGER_COLUMNS }, { acrossProfiles }, appending] = await Promise.all([
    import('../figures/ledger.js'),
    import('../fleet.js'),
    options.append === undefined ? undefined : import('../figures/ledger-append.js'),
  ]);
  // The file is read (and refused, untouched) before the gateway is asked anything.
  const ledgerFile = appending && appending.openLedger(options.append!, options.ndjson ? 'ndjson' : 'csv', options.header);
  const fleet = ctx.options.allProfiles || ctx.options.profiles !== undefined;
  // A ledger asks period by period: a rate limit's window is waited out (within --timeout when given).
  ctx.options.patient = true;
  if (!fleet && !ctx.options.timeoutGiven) ctx.withoutDeadline();
  const partial: string[] = [];
  const exportOne = async (profileCtx: Context, name: string): Promise<Ledger | undefined> => {
    const settings = await profileCtx.settings();
    // A device token reads the balance only: it has no usage to put in a ledger, which the others still get.
    if (fleet && settings.credential?.kind === 'device-token') {
      ctx.note(`profile "${name}" is signed in with a device token, which reads no usage: it is left out of the ledger (\`tally --profile ${name} login --with-token\` gives it an API key)`);
      return undefined;
    }
    const gateway = await profileCtx.gatewayIdentity();
    const held = ledgerFile && appending!.heldDates(ledgerFile.held, ledgerFile.file, settings.profile, gateway.href);
    if (held) partial.push(...held.partial.map((d) => `${d}${fleet ? ` (${settings.profile})` : ''}`));
    try {
      return await loadLedger(profileCtx, { ...options, ...(held && { skipDates: held.dates }), endedOnly: ledgerFile !== undefined });
    } catch (error) {
      // A ledger is whole or not written: which profile stopped it is said before its error.
      if (fleet) ctx.warn(`profile "${name}" could not be exported, so nothing was written`);
      throw error;
    }
  };
  // One profile after another: a ledger is complete or not written at all.
  const results = fleet ? (await acrossProfiles(ctx, exportOne, { sequential: true, failFast: true })).map((r) => ({ profile: r.profile, ledger: (r as { value: Ledger | undefined }).value })) : [{ profile: undefined, ledger: await exportOne(ctx, (await ctx.settings()).profile) }];
  const exported = results.filter((r): r is { profile: string | undefined; ledger: Ledger } => r.ledger !== undefined);
  const ledgers = exported.map((r) => r.ledger);
  // Whose spend each profile's rows are, on stderr (the file stays clean), as for one profile.
  const sayScopes = async () => {
    for (const { profile, ledger } of exported) await sayScope(ctx, ledger, profile);
  };
  const rows = ledgers.flatMap((l) => l.rows);
  if (ledgers.some((l) => l.incomplete)) ctx.warn('a period had more records than tally fetched: its rows are partial');
  if (ledgerFile) {
    const added = await appending!.appendLedger(ctx, ledgerFile.file, rows, ledgers[0]?.bucket ?? 'day');
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
  const table = { header: [...LEDGER_COLUMNS], rows: rows.map((r) => ledgerCells(r)) };
  if (options.ndjson) {
    ctx.io.out(ledgerText(rows, 'ndjson'));
    return;
  }
  if (csv && !options.header) {
    const text = formatCsv({ header: [], rows: table.rows }, ctx.io.stdoutIsTTY);
    ctx.io.out(text.slice(2));
    return;
  }
  await emit(ctx, {
    json: () => ({ bucket: ledgers[0]?.bucket ?? 'day', columns: LEDGER_COLUMNS, rows }),
    csv: () => table,
    human: () => renderLedger(rows, ledgers, ctx),
  });
}

/** Whose spend the rows are, on stderr (the CSV stays clean): a key's ledger is not the account's, and says how much of it it is. */
async function sayScope(ctx: Context, ledger: Ledger | undefined, profile?: string): Promise<void> {
  if (ledger?.scope !== 'key') return;
  const these = profile === undefined ? 'these rows are' : `profile "${profile}": its rows are`;
  const way = profile === undefined ? ' (--all-profiles exports every stored key)' : '';
  if (ledger.accountSpend === undefined) return ctx.note(`${these} this key's spend, not the whole account's${way}`);
  const [{ shareNote }, { Decimal }] = await Promise.all([import('../output/usage-by-model.js'), import('../domain/money.js')]);
  const key = ledger.rows.filter((r) => profile === undefined || r.profile === profile).reduce((a, r) => a.plus(r.amount), new Decimal(0)).toFixed();
  for (const line of await shareNote({ key, account: ledger.accountSpend })) ctx.note(`${these} ${line.replace(/^this key: /, 'this key\'s spend: ')}; the rest is other keys'${way}`);
}

