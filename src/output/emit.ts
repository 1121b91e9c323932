// The one place results reach stdout. A command hands over its records once; this decides
// between JSON, CSV and a table.
import type { Context } from '../context.js';
import { stringifyJson } from '../domain/json.js';
import { UsageError } from '../errors.js';

export interface Csv {
  header: string[];
  rows: string[][];
}

export interface Result {
  /** What --json prints: numbers exactly as received (lossless); a function when costly to build. */
  json: unknown;
  /** What --csv prints, for tabular commands. */
  csv?: () => Csv;
  /** What a person sees (built lazily: the table code loads only here). */
  human: () => Promise<string> | string;
}

export async function emit(ctx: Context, result: Result): Promise<void> {
  if (ctx.options.json) {
    const value = typeof result.json === 'function' ? (result.json as () => unknown)() : result.json;
    ctx.io.out(`${stringifyJson(value, 2)}\n`);
    return;
  }
  if (ctx.options.csv) {
    // Commands say so before any request (cli.ts, pricing --diff); this holds the rule for any other result without rows.
    if (!result.csv) throw new UsageError('--csv has no rows to print here; use --json');
    ctx.io.out(formatCsv(result.csv()));
    return;
  }
  ctx.io.out(await result.human());
}

/** RFC 4180: quote cells holding a comma, quote, or line break. */
export function formatCsv({ header, rows }: Csv): string {
  const line = (cells: string[]) => cells.map(csvCell).join(',');
  return [line(header), ...rows.map(line)].join('\r\n') + '\r\n';
}

function csvCell(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** One JSON document per line (logs --ndjson). */
export function emitNdjson(ctx: Context, record: unknown): void {
  ctx.io.out(`${stringifyJson(record)}\n`);
}
