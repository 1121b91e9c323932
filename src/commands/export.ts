// tally export: the ledger finance reconciles, one row per day (or hour) × model × profile, as
// CSV (a spreadsheet reads its dates as dates) or NDJSON with stable column names. --append FILE
// adds only the periods the file does not hold yet, for a cron job that adds yesterday.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { addWindowOptions } from '../cli/options.js';
import { emit, formatCsv } from '../output/emit.js';
import type { Ledger, LedgerRow } from '../figures/ledger.js';

interface ExportOptions {
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
  addWindowOptions(command, 'the last 7 days, today included');
  command
    .option('--ndjson', 'one JSON object per row (schema: tally schema export)')
    .option('--no-header', 'CSV without its header line')
    .option('--append <file>', 'add the rows to this CSV or NDJSON file, leaving out the periods it already holds for the profile and gateway');
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const options = raw as unknown as ExportOptions;
  const csv = ctx.options.csv === true;
  if (options.ndjson && (csv || ctx.options.json)) throw new UsageError(`--ndjson and --${csv ? 'csv' : 'json'} each choose the format; give one of them`);
  if (options.append !== undefined && !csv && !options.ndjson) throw new UsageError('--append needs the file\'s format: --csv or --ndjson');
  if (!options.header && !csv) throw new UsageError('--no-header goes with --csv');
  const [{ loadLedger, LEDGER_COLUMNS }, { profileContexts }] = await Promise.all([import('../figures/ledger.js'), import('../fleet.js')]);
  const { held: existing, empty } = options.append === undefined ? { held: new Set<string>(), empty: true } : await heldPeriods(options.append, options.ndjson === true);
  const fleet = ctx.options.allProfiles || ctx.options.profiles !== undefined;
  const contexts = fleet ? await profileContexts(ctx) : [{ name: (await ctx.settings()).profile, ctx }];
  if (!fleet && !ctx.options.timeoutGiven) ctx.withoutDeadline();
  const ledgers: Ledger[] = [];
  try {
    // One profile after another: a ledger is complete or not written at all.
    for (const entry of contexts) {
      if (!entry.ctx) throw new UsageError(`profile "${entry.name}" cannot be exported: ${entry.skipped}`);
      const [settings, gateway] = await Promise.all([entry.ctx.settings(), entry.ctx.gatewayIdentity()]);
      const skipDates = new Set([...existing].filter((k) => k.startsWith(`${settings.profile}\u0000${gateway.href}\u0000`)).map((k) => k.split('\u0000')[2]!));
      try {
        ledgers.push(await loadLedger(entry.ctx, { ...options, skipDates }));
      } catch (error) {
        // A ledger is whole or not written: which profile stopped it is said before its error.
        if (fleet) ctx.warn(`profile "${entry.name}" could not be exported, so nothing was written`);
        throw error;
      }
    }
  } finally {
    if (fleet) await Promise.all(contexts.map((c) => (c.ctx !== ctx ? c.ctx?.dispose() : undefined)));
  }
  const rows = ledgers.flatMap((l) => l.rows);
  if (ledgers.some((l) => l.incomplete)) ctx.warn('a period had more records than tally fetched: its rows are partial');
  const table = { header: LEDGER_COLUMNS as string[], rows: rows.map((r) => LEDGER_COLUMNS.map((c) => r[c])) };
  if (options.append !== undefined) {
    const { appendToFile } = await import('../settings/read-file.js');
    // A file not there yet (or empty) is begun with the header.
    const text = options.ndjson ? ndjson(rows) : csvText(table, empty && options.header);
    try {
      if (rows.length > 0 || (empty && !options.ndjson && options.header)) appendToFile(options.append, text);
    } catch (error) {
      throw new UsageError(`--append ${options.append} cannot be written: ${(error as Error).message}`);
    }
    const skipped = ledgers.reduce((a, l) => a + l.skipped, 0);
    ctx.note(`added ${rows.length} row${rows.length === 1 ? '' : 's'} to ${options.append}${skipped ? `; ${skipped} period${skipped === 1 ? ' was' : 's were'} there already` : ''}`);
    return;
  }
  if (options.ndjson) {
    ctx.io.out(ndjson(rows));
    return;
  }
  if (csv && !options.header) {
    ctx.io.out(csvText(table, false, ctx.io.stdoutIsTTY));
    return;
  }
  await emit(ctx, {
    json: () => ({ bucket: ledgers[0]?.bucket ?? 'day', columns: LEDGER_COLUMNS, rows }),
    csv: () => table,
    human: () => renderLedger(rows, ledgers, ctx),
  });
}

function ndjson(rows: LedgerRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** The ledger as CSV, with or without its header line. */
function csvText(table: { header: string[]; rows: string[][] }, header: boolean, terminal = false): string {
  const text = formatCsv(table, terminal);
  return header ? text : text.slice(text.indexOf('\r\n') + 2);
}

/** The periods a file already holds, as profile NUL gateway NUL date, and whether it is empty (a file not there holds none). */
async function heldPeriods(path: string, isNdjson: boolean): Promise<{ held: Set<string>; empty: boolean }> {
  const { readStateFile } = await import('../settings/read-file.js');
  let text: string;
  try {
    text = readStateFile(path, 1024 * 1024 * 1024).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { held: new Set(), empty: true };
    throw new UsageError(`--append ${path} cannot be read: ${(error as Error).message}`);
  }
  const held = new Set<string>();
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (isNdjson) {
    for (const [i, line] of lines.entries()) {
      let row: Partial<LedgerRow>;
      try {
        row = JSON.parse(line) as Partial<LedgerRow>;
      } catch {
        throw new UsageError(`--append ${path}: line ${i + 1} is not JSON; is it an NDJSON export?`);
      }
      if (typeof row.date === 'string' && typeof row.profile === 'string' && typeof row.gateway === 'string') held.add(`${row.profile}\u0000${row.gateway}\u0000${row.date}`);
    }
    return { held, empty: text.length === 0 };
  }
  const header = csvCells(lines[0] ?? '');
  const [date, profile, gateway] = ['date', 'profile', 'gateway'].map((c) => header.indexOf(c));
  if (lines.length > 0 && (date! < 0 || profile! < 0 || gateway! < 0)) throw new UsageError(`--append ${path} has no date, profile and gateway columns in its first line; is it a CSV export with its header?`);
  for (const line of lines.slice(1)) {
    const cells = csvCells(line);
    held.add(`${cells[profile!]}\u0000${cells[gateway!]}\u0000${cells[date!]}`);
  }
  return { held, empty: text.length === 0 };
}

/** The cells of one RFC 4180 line. */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let cell = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') (cell += '"'), (i += 2);
        else if (line[i] === '"') break;
        else cell += line[i++];
      }
      cells.push(cell);
      i += 2;
    } else {
      const end = line.indexOf(',', i);
      cells.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return cells;
}

async function renderLedger(rows: LedgerRow[], ledgers: Ledger[], ctx: Context): Promise<string> {
  const [{ renderTable }, { formatAmount, formatCount }, { styleFor }, { fitLines }, { describeWindow }, { fixedZone }, { Decimal }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
    import('../output/window-text.js'),
    import('../domain/zone.js'),
    import('../domain/money.js'),
  ]);
  const style = await styleFor(ctx);
  const fleet = new Set(rows.map((r) => r.profile)).size > 1;
  const count = (text: string) => (text === '' ? '' : formatCount(text));
  const table = await renderTable(
    {
      columns: [{ header: 'date' }, ...(fleet ? [{ header: 'profile' }] : []), { header: 'model' }, { header: 'calls', align: 'decimal' as const, dropOrder: 3 }, { header: 'input tokens', align: 'decimal' as const, dropOrder: 2 }, { header: 'output tokens', align: 'decimal' as const, dropOrder: 1 }, { header: 'amount (¥)', align: 'decimal' as const }],
      rows: rows.map((r) => [r.date, ...(fleet ? [r.profile] : []), r.model, count(r.calls), count(r.input_tokens), count(r.output_tokens), formatAmount(r.amount, 'account', { exact: ctx.options.exact })]),
      footer: ['total', ...(fleet ? [''] : []), '', '', '', '', formatAmount(rows.reduce((a, r) => a.plus(r.amount), new Decimal(0)), 'account', { exact: ctx.options.exact })],
    },
    style,
  );
  const notes = ledgers.map((l) => describeWindow(l.window, fixedZone(l.dayOffset)));
  notes.push('--csv or --ndjson for the ledger itself (every amount exact)');
  return `${table}${style.paint.dim(await fitLines([...new Set(notes)].join('\n'), style.width))}\n`;
}
