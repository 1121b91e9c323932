// `export --append FILE`: a ledger that never loses or doubles a row. The file is read before
// anything is asked of the gateway (a file that is not tally's ledger is refused untouched, and
// the periods it holds are not asked again), then read again under a lock and appended to in one
// write: two runs at once add each period once, and a failed write leaves the file as it was.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { neutraliseFormula } from '../domain/csv.js';
import { type HeldPeriods, type LedgerColumns, type LedgerFormat, type LedgerRow, NotALedger, ledgerText, periodKey, readHeldPeriods } from '../domain/ledger-format.js';
import { withRunLock } from '../locking.js';
import { fileLockPath } from '../settings/cache-key.js';
import { appendWhole, ledgerTarget, readLedgerFile } from '../settings/ledger-file.js';

export interface LedgerFile {
  /** As the user named it, for messages. */
  path: string;
  /** The regular file it leads to. */
  target: string;
  format: LedgerFormat;
  header: boolean;
}

/** Reads what the file holds, refusing (exit 2, the file untouched) anything that is not a ledger tally wrote in this form. */
export function readLedger(file: LedgerFile): HeldPeriods {
  try {
    return readHeldPeriods(readLedgerFile(file.target), file.format, file.header);
  } catch (error) {
    if (error instanceof NotALedger) throw new UsageError(`--append ${file.path} is not a ledger tally can add to: ${error.message}; nothing was written`);
    throw error;
  }
}

export function openLedger(path: string, format: LedgerFormat, header: boolean, grouped = false): { file: LedgerFile; held: HeldPeriods } {
  const file = { path, target: ledgerTarget(path), format, header };
  const held = readLedger(file);
  columnsFor(file, held, grouped);
  return { file, held };
}

/**
 * The columns new rows are written in: the file's own, or for an empty file the export's (a group
 * column with --by group). A ledger keeps one set of columns: --by group adds only to a ledger
 * written with it, and a ledger written with it only with --by group (refused, the file untouched).
 */
function columnsFor(file: LedgerFile, held: HeldPeriods, grouped: boolean): LedgerColumns {
  if (held.empty) return grouped ? 'grouped' : 'current';
  if (grouped && held.columns !== 'grouped') throw new UsageError(`--append ${file.path} has no group column (it was written without --by group); --by group adds to a ledger written with it (start one in a file of its own); nothing was written`);
  if (!grouped && held.columns === 'grouped') throw new UsageError(`--append ${file.path} has a group column (it was written with --by group): add --by group to add to it; nothing was written`);
  return held.columns;
}

/** The dates a profile's rows of a gateway hold in the file, and those held only as a running period's rows. */
export function heldDates(held: HeldPeriods, file: LedgerFile, profile: string, gateway: string): { dates: Set<string>; partial: string[] } {
  const prefix = periodKey({ profile: cell(file, profile), gateway: cell(file, gateway), date: '' });
  const dates = new Set<string>();
  const partial: string[] = [];
  for (const [key, { complete }] of held.held) {
    if (!key.startsWith(prefix)) continue;
    const date = key.slice(prefix.length);
    dates.add(date);
    if (!complete) partial.push(date);
  }
  return { dates, partial: partial.sort() };
}

export interface Appended {
  rows: number;
  /** Periods another run wrote while this one fetched (they were left out). */
  raced: number;
}

/** Appends the rows of the periods the file does not hold, under the ledger's lock, in one write. */
export async function appendLedger(ctx: Context, file: LedgerFile, rows: readonly LedgerRow[], bucket: 'day' | 'hour', grouped = false): Promise<Appended> {
  const lock = fileLockPath(await ctx.stateDir(), 'ledger', file.target);
  let result: Appended = { rows: 0, raced: 0 };
  await withRunLock(ctx, lock, `the ledger ${file.path}`, () => {
    // Read again under the lock: what another run added meanwhile is held now.
    const held = readLedger(file);
    if (held.hours !== undefined && held.hours !== (bucket === 'hour')) throw new UsageError(`--append ${file.path} holds ${held.hours ? 'hours' : 'days'}; this export has a row per ${bucket} (--bucket ${held.hours ? 'hour' : 'day'} adds to it); nothing was written`);
    const fresh = rows.filter((r) => !held.held.has(periodKey({ profile: cell(file, r.profile), gateway: cell(file, r.gateway), date: r.date })));
    const raced = new Set(rows.filter((r) => !fresh.includes(r)).map((r) => r.date)).size;
    const body = ledgerText(fresh, file.format, { columns: columnsFor(file, held, grouped), header: held.empty && file.header, lineBreak: held.lineBreak });
    const text = body === '' ? '' : `${held.pendingLineBreak}${ctx.secrets.scrub(body)}`;
    if (text !== '') appendWhole(file.target, text);
    result = { rows: fresh.length, raced };
  });
  return result;
}

/** A cell as the file holds it (CSV neutralises formula text), for comparing with what was read back. */
function cell(file: LedgerFile, text: string): string {
  return file.format === 'csv' ? neutraliseFormula(text) : text;
}
