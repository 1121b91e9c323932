// Tables and key/value panels for people: the one place that fits output to the terminal.
// - Every cell is escaped (nothing from the network or a file drives the terminal) except the
//   ones tally drew itself (bars), which a column or a panel value says with `drawn`.
// - On a terminal, a table wider than the terminal drops its least important columns first
//   (highest dropOrder; 0 never: the identifying column), then shortens text cells with `…`,
//   and says below it what it hid. `--wide` never drops or shortens.
// - Amount columns align on the decimal point.
// Columns are laid out directly (no per-cell box drawing): a 2,208-row usage table renders in
// milliseconds, where a boxed-table library (cli-table3) took over half a second.
import { escapeControl } from './escape.js';
import { NARROW, NARROW_OR_NUL, displayWidth, prepareWidths } from './width.js';
import { fitLines } from './wrap.js';

/** What tally paints with: chalk when there is colour, plain text otherwise. */
export interface Painter {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

export interface Style {
  color: boolean;
  /** Columns to fit (Infinity on a pipe or with --wide). */
  width: number;
  unicode: boolean;
  paint: Painter;
  /** --wide: never drop or shorten a column. */
  wide?: boolean;
}

export interface Column {
  header: string;
  /** What the column is called when it has to be hidden and its header is empty (a bar). */
  name?: string;
  /** `decimal`: right-aligned, decimal points in one column. */
  align?: 'left' | 'right' | 'decimal';
  /** Columns with a higher number are dropped first when the terminal is too narrow; 0 (the default) never. */
  dropOrder?: number;
  /** Cells tally drew itself (bars, with colour codes): not escaped. Everything else may come from the service. */
  drawn?: boolean;
}

export interface TableSpec {
  columns: Column[];
  rows: string[][];
  /** A last row set apart (totals). */
  footer?: string[];
}

/** Text tally made itself (a bar, a coloured mark): shown as it is, not escaped. */
export interface Drawn {
  drawn: string;
}

export function drawn(text: string): Drawn {
  return { drawn: text };
}

const BLANKS: string[] = [];

/** `count` blanks, each length made once. */
function blanks(count: number): string {
  return (BLANKS[count] ??= ' '.repeat(count));
}
const GAP = '  ';
const ELLIPSIS = '…';

/** A table that fits the terminal: optional columns are dropped, in dropOrder, until it fits. */
export async function renderTable(spec: TableSpec, style: Style): Promise<string> {
  const paint = style.paint;
  const { columns, rows } = spec;
  const count = columns.length;
  const lines = [columns.map((c) => c.header), ...rows, ...(spec.footer ? [spec.footer] : [])];
  const widths = new Array<number>(count).fill(0);
  // Cells whose terminal width is not their length (wide characters, colour codes), by
  // position (line * count + column) in `lines`: rare, so they are kept aside.
  const odd = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const drawnColumn = columns[i]!.drawn === true;
    const look = (r: number) => {
      const row = lines[r]!;
      const cell = row[i] ?? '';
      const mine = drawnColumn && r > 0;
      if (NARROW.test(cell) || (mine && !cell.includes('\u001b'))) {
        if (cell.length > widths[i]!) widths[i] = cell.length;
      } else {
        // Anything else is escaped (it must never drive the terminal).
        if (!mine) row[i] = escapeControl(cell);
        odd.set(r * count + i, -1);
      }
    };
    // One look at a column's joined body text: narrow text (most of it) needs neither escaping
    // nor measuring. The header (the service's field names) and the footer are looked at alone.
    const bodyWidth = plainColumnWidth(rows, i, drawnColumn);
    if (bodyWidth === undefined) for (let r = 1; r <= rows.length; r++) look(r);
    else widths[i] = bodyWidth;
    look(0);
    if (spec.footer) look(lines.length - 1);
  }
  if (odd.size > 0) {
    const cellAt = (at: number) => lines[Math.floor(at / count)]![at % count] ?? '';
    await prepareWidths([...odd.keys()].map(cellAt));
    for (const at of odd.keys()) {
      const width = displayWidth(cellAt(at));
      odd.set(at, width);
      if (width > widths[at % count]!) widths[at % count] = width;
    }
  }
  // Decimal columns: cells with fewer decimals than the longest get blanks after them.
  const tails = columns.map((c, i) => (c.align === 'decimal' ? decimalTails(lines, i) : undefined));
  for (let i = 0; i < count; i++) if (tails[i]) widths[i] = Math.max(widths[i]!, tails[i]!.width);

  let keep = columns.map((_, i) => i);
  const total = () => keep.reduce((sum, i) => sum + widths[i]!, 0) + GAP.length * (keep.length - 1);
  const hidden: string[] = [];
  if (!style.wide) {
    while (total() > style.width) {
      const droppable = keep.filter((i) => (columns[i]!.dropOrder ?? 0) > 0);
      if (droppable.length === 0) break;
      const drop = droppable.reduce((a, b) => (columns[b]!.dropOrder! > columns[a]!.dropOrder! ? b : a));
      keep = keep.filter((i) => i !== drop);
      hidden.push(escapeControl(columns[drop]!.header || columns[drop]!.name || `column ${drop + 1}`));
    }
  }
  // Still too wide: shorten the widest text column (never an amount, a count or a bar). Per
  // column, the width its cells are cut to (-1: not cut).
  const limits = columns.map(() => -1);
  if (!style.wide) {
    for (let guard = 0; total() > style.width && guard < count; guard++) {
      const text = keep.filter((i) => columns[i]!.align !== 'right' && columns[i]!.align !== 'decimal' && !columns[i]!.drawn);
      if (text.length === 0) break;
      const widest = text.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
      const target = Math.max(widths[widest]! - (total() - style.width), Math.min(widths[widest]!, 8));
      if (target >= widths[widest]!) break;
      widths[widest] = target;
      limits[widest] = target;
    }
  }
  const right = columns.map((c) => c.align === 'right' || c.align === 'decimal');
  const hasOdd = odd.size > 0;
  const pads = tails.map((tail) => tail?.pad);
  // The pieces of each line (cells, gaps, blanks) go into one array, joined once at the end: a
  // long table's text is then one string, not thousands of lines of chained pieces for the
  // garbage collector to copy while they wait.
  const put = (r: number, parts: string[]) => {
    const row = lines[r]!;
    // Empty cells at the end of a line leave no blanks behind.
    let end = keep.length - 1;
    while (end > 0 && (row[keep[end]!] ?? '') === '') end--;
    for (let k = 0; k <= end; k++) {
      const i = keep[k]!;
      let cell = row[i] ?? '';
      let width = hasOdd ? (odd.get(r * count + i) ?? cell.length) : cell.length;
      const limit = limits[i]!;
      if (limit >= 0 && width > limit) {
        cell = shorten(cell, limit);
        width = displayWidth(cell);
      }
      // Blanks after a cell with fewer decimals line its point up; at the end of a line they stay unwritten.
      const padding = pads[i];
      const pad = padding && r > 0 ? padding(cell) : 0;
      const gap = widths[i]! - width - pad;
      if (k > 0) parts.push(GAP);
      if (gap <= 0 || (k === end && !right[i])) parts.push(cell);
      else if (right[i]) parts.push(blanks(gap), cell);
      else parts.push(cell, blanks(gap));
      if (pad > 0 && k < end) parts.push(blanks(pad));
    }
  };
  const line = (r: number) => {
    const parts: string[] = [];
    put(r, parts);
    return parts.join('');
  };
  const rule = paint.dim(keep.map((i) => (style.unicode ? '─' : '-').repeat(widths[i]!)).join(GAP));
  const out = [paint.bold(line(0)), '\n', rule, '\n'];
  const bodyEnd = 1 + rows.length;
  for (let r = 1; r < bodyEnd; r++) {
    put(r, out);
    out.push('\n');
  }
  if (spec.footer) out.push(rule, '\n', paint.bold(line(bodyEnd)), '\n');
  let text = out.join('');
  if (hidden.length > 0) {
    const note = `${hidden.length === 1 ? 'column' : 'columns'} hidden to fit ${style.width} columns: ${hidden.join(', ')} (--wide shows every column; --csv or --json every field)`;
    text += `${paint.dim(await fitLines(note, style.width))}\n`;
  }
  return text;
}

/** A cell cut to `width` columns, ending in `…`. */
export function shorten(cell: string, width: number): string {
  let out = '';
  let used = 0;
  for (const char of cell) {
    const w = displayWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return out + ELLIPSIS;
}

/**
 * For a decimal column: the widest cell once decimal points are lined up, and how many blanks
 * each cell needs after it; no padding at all when every cell has as many decimals (the usual
 * case, where right alignment alone lines the points up).
 */
function decimalTails(lines: string[][], column: number): { width: number; pad?: (cell: string) => number } {
  // Digits after the last point (a cell without a point, or with no digit after it, has none).
  const tailOf = (cell: string) => {
    const dot = cell.lastIndexOf('.');
    return dot < 0 || !isDigit(cell.charCodeAt(dot + 1)) ? 0 : cell.length - dot;
  };
  let most = 0;
  let least = Number.POSITIVE_INFINITY;
  for (let r = 1; r < lines.length; r++) {
    const cell = lines[r]![column] ?? '';
    if (cell === '' || !hasDigit(cell)) continue;
    const tail = tailOf(cell);
    if (tail > most) most = tail;
    if (tail < least) least = tail;
  }
  if (most === least || most === 0) return { width: 0 };
  let width = 0;
  for (let r = 1; r < lines.length; r++) {
    const cell = lines[r]![column] ?? '';
    width = Math.max(width, displayWidth(cell) + (hasDigit(cell) ? most - tailOf(cell) : 0));
  }
  // A cell without digits (a dash for "none") is not a number: it sits at the column's right edge.
  return { width, pad: (cell) => (cell === '' || !hasDigit(cell) ? 0 : most - tailOf(cell)) };
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) return true;
  return false;
}

/**
 * The widest cell of a column whose body cells are all narrow text (or, for tally's own
 * columns, free of colour codes); undefined otherwise. The cells are joined with NUL, which no
 * narrow text holds: the joined text is narrow apart from exactly one NUL per join, or not.
 */
function plainColumnWidth(rows: string[][], column: number, drawnColumn: boolean): number | undefined {
  if (rows.length === 0) return 0;
  const joined = rows.map((row) => row[column] ?? '').join('\u0000');
  if (drawnColumn ? joined.includes('\u001b') : !NARROW_OR_NUL.test(joined)) return undefined;
  let widest = 0;
  let separators = 0;
  let from = 0;
  for (;;) {
    const at = joined.indexOf('\u0000', from);
    const end = at === -1 ? joined.length : at;
    if (end - from > widest) widest = end - from;
    if (at === -1) break;
    separators++;
    from = at + 1;
  }
  return separators === rows.length - 1 ? widest : undefined;
}

export type PanelValue = string | Drawn;

/**
 * Label/value lines, labels aligned. Values are escaped unless drawn by tally; on a terminal a
 * long value wraps under itself.
 */
export async function renderPanel(rows: [label: string, value: PanelValue][], style: Style): Promise<string> {
  const paint = style.paint;
  const labels = rows.map(([label]) => escapeControl(label));
  await prepareWidths(labels);
  const width = Math.max(...labels.map((label) => displayWidth(label)));
  const lines = await Promise.all(
    rows.map(async ([, value], i) => {
      const label = labels[i]!;
      const text = typeof value === 'string' ? escapeControl(value) : value.drawn;
      const head = `${paint.dim(label)}${blanks(width - displayWidth(label))}  `;
      const body = await fitLines(text, style.width - width - 2);
      return `${head}${body.split('\n').join(`\n${blanks(width + 2)}`)}`.trimEnd();
    }),
  );
  return `${lines.join('\n')}\n`;
}

/** Draws horizontal bars `width` columns wide for shares between 0 and 1. */
export function barMaker(width: number, style: Pick<Style, 'unicode' | 'paint'>): (share: number) => string {
  const [full, empty] = style.unicode ? ['█', '░'] : ['#', '.'];
  const paint = style.paint;
  // A bar has only width + 1 looks: draw each once.
  const bars = Array.from({ length: width + 1 }, (_, filled) => {
    const share = filled / width;
    const color = share >= 0.9 ? paint.red : share >= 0.75 ? paint.yellow : paint.green;
    return color(full.repeat(filled)) + paint.dim(empty.repeat(width - filled));
  });
  return (share) => bars[Math.round((Number.isFinite(share) ? Math.min(Math.max(share, 0), 1) : 0) * width)]!;
}

/** One bar (a panel line). */
export function bar(share: number, width: number, style: Pick<Style, 'unicode' | 'paint'>): string {
  return barMaker(width, style)(share);
}
