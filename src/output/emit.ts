// The one place results reach stdout. A command hands over its records once; this decides
// between JSON, CSV and a table, and escapes what is written to a terminal.
import { displayCurrency } from './money.js';
import type { Context } from '../context.js';
import { csvCell, csvLine } from '../domain/csv.js';
import { stringifyJson } from '../domain/json.js';
import { UsageError } from '../errors.js';
import { escapeControl, escapeJsonForTerminal, guardTerminalText } from './escape.js';

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
  // An interrupt that came during the work (heard only now) ends the run before any result is written.
  await ctx.checkpoint();
  // What the program's top arranged to run before the first result (the display currency's rate, asked once).
  const before = ctx.beforeOutput;
  ctx.beforeOutput = undefined;
  await before?.();
  const tty = ctx.io.stdoutIsTTY;
  const display = displayCurrency();
  if (ctx.options.json) {
    const value = typeof result.json === 'function' ? (result.json as () => unknown)() : result.json;
    await writeJson(ctx, display ? (await import('./display.js')).withDisplay(value, display) : value, 2);
    return;
  }
  if (ctx.options.csv) {
    // Commands say so before any request (cli/program.ts, pricing --diff); this holds the rule for any other result without rows.
    if (!result.csv) throw new UsageError('--csv has no rows to print here; use --json');
    ctx.io.out(formatCsv(result.csv(), tty));
    return;
  }
  const human = `${await result.human()}${display ? (await import('./display.js')).displayFooter(display) : ''}`;
  // On a terminal every line fits its width: a sentence of a view is wrapped at its words (tables already fit).
  const text = tty && !ctx.options.wide ? await (await import('./wrap.js')).fitLines(human, ctx.io.width) : human;
  if (tty && (await paged(ctx, guardTerminalText(text, ctx.io.color)))) return;
  ctx.io.out(tty ? guardTerminalText(text, ctx.io.color) : text);
}

/**
 * A table taller than the terminal goes through $TALLY_PAGER, else $PAGER, else `less -FRX`
 * (an empty pager or `cat`, or --no-pager, writes it directly). True when a pager showed it.
 */
async function paged(ctx: Context, text: string): Promise<boolean> {
  if (!ctx.io.page || ctx.options.noPager) return false;
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0 && lines < ctx.io.height; at = text.indexOf('\n', at + 1)) lines++;
  if (lines < ctx.io.height) return false;
  const command = (ctx.env.TALLY_PAGER ?? ctx.env.PAGER ?? 'less -FRX').trim();
  if (command === '' || command === 'cat') return false;
  return ctx.io.page(command, text);
}

/** One JSON document on stdout (through --jq when given), escaped for a terminal. */
export async function writeJson(ctx: Context, value: unknown, indent?: number): Promise<void> {
  if (ctx.options.jq !== undefined) {
    const { applyJq } = await import('./jq.js');
    ctx.io.out(await applyJq(ctx, value));
    return;
  }
  const text = `${stringifyJson(value, indent)}\n`;
  ctx.io.out(ctx.io.stdoutIsTTY ? escapeJsonForTerminal(text) : text);
}

/** RFC 4180 with formula text neutralised (domain/csv.ts); on a terminal, control characters escaped. */
export function formatCsv({ header, rows }: Csv, terminal = false): string {
  const cell = terminal ? (text: string) => csvCell(escapeControl(text)) : csvCell;
  return [csvLine(header, cell), ...rows.map((r) => csvLine(r, cell))].join('\r\n') + '\r\n';
}

/** One JSON document per line (logs --ndjson), escaped on a terminal. */
export function emitNdjson(ctx: Context, records: readonly unknown[]): void {
  // One write for the lot: a page of a thousand records is one system call, not a thousand.
  let text = '';
  for (const record of records) text += `${stringifyJson(record)}\n`;
  if (text) ctx.io.out(ctx.io.stdoutIsTTY ? escapeJsonForTerminal(text) : text);
}