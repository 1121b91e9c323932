// The ledger's file format, in one place: its columns, how a row is written (CSV, safe to open,
// or NDJSON), and how a file is read back to learn which periods it already holds. Reading is
// strict, because `--append` trusts it: a real RFC 4180 parser (a model name may hold a quote or
// a line break), only tally's columns in tally's order, every row valid, and a last row cut short
// (a full disk, an interrupted editor) told apart from a whole row that only lacks its line break.
import { parse } from 'csv-parse/sync';
import { csvLine } from './csv.js';

/** A row of the ledger: stable column names, every value text (an amount exactly as added up). */
export interface LedgerRow {
  date: string;
  zone: string;
  profile: string;
  gateway: string;
  scope: string;
  model: string;
  calls: string;
  input_tokens: string;
  output_tokens: string;
  amount: string;
  currency: string;
  /** Whether the period had ended when the row was written: a running day's rows are not final. */
  complete: boolean;
  /** The profile's group (tally group; "unattributed" for none), in a ledger written with --by group. */
  group?: string;
}

export const LEDGER_COLUMNS = ['date', 'zone', 'profile', 'gateway', 'scope', 'model', 'calls', 'input_tokens', 'output_tokens', 'amount', 'currency', 'complete'] as const;
/** The columns tally wrote before rows said whether their period had ended; such a file is still appended to, in its own form. */
export const LEDGER_COLUMNS_V1 = LEDGER_COLUMNS.slice(0, -1);

/** The columns of a ledger written with --by group: each row's group after its profile. */
export const LEDGER_COLUMNS_GROUPED = [...LEDGER_COLUMNS.slice(0, 3), 'group', ...LEDGER_COLUMNS.slice(3)] as const;

export type LedgerFormat = 'csv' | 'ndjson';
/** Which of tally's sets of columns a file has. */
export type LedgerColumns = 'current' | 'v1' | 'grouped';

const columnsOf = (columns: LedgerColumns): readonly string[] => (columns === 'current' ? LEDGER_COLUMNS : columns === 'grouped' ? LEDGER_COLUMNS_GROUPED : LEDGER_COLUMNS_V1);
/** The set of columns whose names, in order, are `names` (a header line, an NDJSON row's keys). */
const columnsNamed = (names: string): LedgerColumns | undefined => (['current', 'grouped', 'v1'] as const).find((c) => columnsOf(c).join(',') === names);

/** What identifies a period in a ledger: one profile's rows of one gateway for one date. */
export function periodKey(row: Pick<LedgerRow, 'profile' | 'gateway' | 'date'>): string {
  return `${row.profile}\u0000${row.gateway}\u0000${row.date}`;
}

/** The header line's cells. */
export function ledgerHeader(columns: LedgerColumns = 'current'): string[] {
  return [...columnsOf(columns)];
}

/** A row's cells, in the file's columns. */
export function ledgerCells(row: LedgerRow, columns: LedgerColumns = 'current'): string[] {
  return columnsOf(columns).map((c) => (c === 'complete' ? String(row.complete) : (row[c as Exclude<keyof LedgerRow, 'complete'>] ?? '')));
}

/** A row as a JSON document of the file's columns (NDJSON, --json), in their order. */
export function ledgerDocument(row: LedgerRow, columns: LedgerColumns = 'current'): Record<string, string | boolean> {
  return Object.fromEntries(columnsOf(columns).map((c) => [c, c === 'complete' ? row.complete : (row[c as Exclude<keyof LedgerRow, 'complete'>] ?? '')]));
}

/** Rows as text of the format, each ending with its line break (CSV: CRLF, or what the file uses). */
export function ledgerText(rows: readonly LedgerRow[], format: LedgerFormat, options: { columns?: LedgerColumns; header?: boolean; lineBreak?: string } = {}): string {
  const columns = options.columns ?? 'current';
  if (format === 'ndjson') return rows.map((r) => `${JSON.stringify(ledgerDocument(r, columns))}\n`).join('');
  const lineBreak = options.lineBreak ?? '\r\n';
  const lines = rows.map((r) => csvLine(ledgerCells(r, columns)));
  if (options.header) lines.unshift(csvLine(ledgerHeader(columns)));
  return lines.map((l) => `${l}${lineBreak}`).join('');
}

/** Why a file cannot be appended to: said as it is, the file left untouched. */
export class NotALedger extends Error {}

export interface HeldPeriods {
  /** Which columns the file's rows have (a new or empty file takes the current ones). */
  columns: LedgerColumns;
  /** Whether the file holds nothing yet (a header is written first). */
  empty: boolean;
  /** Periods the file holds rows of, each with whether those rows were of an ended period. */
  held: Map<string, { complete: boolean }>;
  /** Whether the file's periods are hours (dates with a time) or days; undefined when it holds no row. */
  hours: boolean | undefined;
  /** The last row is whole but has no line break after it: one is written before new rows. */
  needsLineBreak: boolean;
  /** What completes the last line break ('' when it is whole; '\n' after a lone CR). */
  pendingLineBreak: string;
  /** The line break the file uses (CSV). */
  lineBreak: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$/;
const ZONE = /^UTC[+-]\d{2}:\d{2}$/;
const COUNT = /^(\d+)?$/;
const AMOUNT = /^-?\d+(\.\d+)?$/;

/** What is wrong with a row's values, or undefined when it is a row tally writes. */
function rowProblem(cells: Record<string, unknown>, columns: LedgerColumns): string | undefined {
  for (const c of columnsOf(columns)) {
    const value = cells[c];
    if (c === 'complete') {
      if (value !== true && value !== false && value !== 'true' && value !== 'false') return `its complete is not true or false`;
      continue;
    }
    if (typeof value !== 'string') return `its ${c} is not text`;
    if (c === 'date' && !DATE.test(value)) return `its date "${value.slice(0, 40)}" is not a day or an hour`;
    if (c === 'zone' && !ZONE.test(value)) return `its zone "${value.slice(0, 40)}" is not UTC±HH:MM`;
    if ((c === 'profile' || c === 'gateway' || c === 'currency' || c === 'group') && value === '') return `its ${c} is empty`;
    if (c === 'scope' && !['account', 'key', ''].includes(value)) return `its scope "${value.slice(0, 40)}" is not account, key or empty`;
    if ((c === 'calls' || c === 'input_tokens' || c === 'output_tokens') && !COUNT.test(value)) return `its ${c} "${value.slice(0, 40)}" is not a whole number`;
    if (c === 'amount' && !AMOUNT.test(value)) return `its amount "${value.slice(0, 40)}" is not a decimal`;
  }
  return undefined;
}

/**
 * The periods a ledger file holds. `text` is the whole file; `header` whether it was written
 * with its header line (CSV). Throws NotALedger, with the reason, for anything but a file tally
 * wrote in this format.
 */
export function readHeldPeriods(text: string, format: LedgerFormat, header = true): HeldPeriods {
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const result: HeldPeriods = { columns: 'current', empty: body.length === 0, held: new Map(), hours: undefined, needsLineBreak: false, pendingLineBreak: '', lineBreak: /\r\n/.test(body) || !/\n/.test(body) ? '\r\n' : '\n' };
  if (result.empty) return result;
  if (body.trim() === '') throw new NotALedger('it holds only blank space, not rows of a ledger');
  const endsWhole = body.endsWith('\n');
  const rows = format === 'ndjson' ? ndjsonRows(body, endsWhole) : csvRows(body, endsWhole, header, result);
  if (format === 'ndjson' && rows.length > 0) result.columns = columnsNamed(Object.keys(rows[0]!.cells).join(',')) ?? 'current';
  for (const { cells, line, last } of rows) {
    const problem = rowProblem(cells, result.columns);
    if (problem) {
      if (last && !endsWhole) throw new NotALedger(`its last row (line ${line}) is cut short (${problem}), as a full disk or an interrupted write leaves it; mend or remove that line, and run again`);
      throw new NotALedger(`line ${line} is not a row of a tally ledger: ${problem}`);
    }
    const date = cells.date as string;
    const hours = date.length > 10;
    if (result.hours !== undefined && result.hours !== hours) throw new NotALedger(`it mixes days and hours (line ${line}); a ledger has one or the other`);
    result.hours = hours;
    const key = periodKey({ profile: cells.profile as string, gateway: cells.gateway as string, date });
    const complete = result.columns === 'v1' || cells.complete === true || cells.complete === 'true';
    const before = result.held.get(key);
    result.held.set(key, { complete: (before?.complete ?? true) && complete });
  }
  result.needsLineBreak = !endsWhole;
  result.pendingLineBreak = endsWhole ? '' : body.endsWith('\r') ? '\n' : format === 'csv' ? result.lineBreak : '\n';
  return result;
}

interface ReadRow {
  cells: Record<string, unknown>;
  line: number;
  last: boolean;
}

function ndjsonRows(body: string, endsWhole: boolean): ReadRow[] {
  const lines = body.split('\n');
  if (endsWhole) lines.pop();
  const rows: ReadRow[] = [];
  let keys: string | undefined;
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const last = i === lines.length - 1;
    if (line.trim() === '') throw new NotALedger(`line ${i + 1} is blank; an NDJSON ledger has one row on every line`);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (last && !endsWhole) throw new NotALedger(`its last line (${i + 1}) is cut short, as a full disk or an interrupted write leaves it; mend or remove that line, and run again`);
      throw new NotALedger(`line ${i + 1} is not JSON; is it an NDJSON export of tally's?`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new NotALedger(`line ${i + 1} is not a ledger row (a JSON object)`);
    const names = Object.keys(value).join(',');
    if (columnsNamed(names) === undefined) throw new NotALedger(`line ${i + 1} has other fields than a tally ledger row (${LEDGER_COLUMNS.join(', ')}, in that order)`);
    if (keys !== undefined && names !== keys) throw new NotALedger(`line ${i + 1} has other fields than the lines before it`);
    keys = names;
    rows.push({ cells: value as Record<string, unknown>, line: i + 1, last });
  }
  return rows;
}

function csvRows(body: string, endsWhole: boolean, header: boolean, result: HeldPeriods): ReadRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(body, { relax_column_count: true, info: true, skip_empty_lines: false }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') throw new NotALedger(`its last row is cut short inside a quoted cell, as a full disk or an interrupted write leaves it; mend or remove that row, and run again`);
    throw new NotALedger(`it is not CSV as tally writes it (${(error as Error).message.slice(0, 120)})`);
  }
  const current = LEDGER_COLUMNS.join(',');
  const first = records[0]?.record.join(',');
  const named = first === undefined ? undefined : columnsNamed(first);
  if (header) {
    if (named) result.columns = named;
    else if (records[0] && DATE.test(records[0].record[0] ?? '')) throw new NotALedger('its first line is a row, not tally\'s header; a file written with --no-header is appended to with --no-header');
    else throw new NotALedger(`its first line is not tally's header (${current}); tally appends only to a ledger it wrote`);
    records = records.slice(1);
  } else {
    if (named) throw new NotALedger('its first line is tally\'s header; leave out --no-header to append to it');
    const widths = new Set(records.map((r) => r.record.length));
    const width = records[0]?.record.length;
    result.columns = widths.size === 1 && width === LEDGER_COLUMNS_V1.length ? 'v1' : widths.size === 1 && width === LEDGER_COLUMNS_GROUPED.length ? 'grouped' : 'current';
  }
  const width = columnsOf(result.columns).length;
  return records.map(({ record, info }, i) => {
    const last = i === records.length - 1;
    if (record.length === 1 && record[0] === '') throw new NotALedger(`line ${info.lines} is blank; a ledger has a row on every line`);
    if (record.length !== width) {
      if (last && !endsWhole) throw new NotALedger(`its last row (line ${info.lines}) is cut short (${record.length} of ${width} cells), as a full disk or an interrupted write leaves it; mend or remove that line, and run again`);
      throw new NotALedger(`line ${info.lines} has ${record.length} cells where tally's ledger has ${width}`);
    }
    return { cells: Object.fromEntries(columnsOf(result.columns).map((c, j) => [c, record[j]])), line: info.lines, last };
  });
}
