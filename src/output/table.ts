// Tables and key/value panels for people. Loaded only when a human view is rendered.
// Columns are laid out directly (aligned, no per-cell box drawing): a 2,208-row usage table
// renders in milliseconds, where a boxed-table library took over half a second.
import { escapeControl } from './escape.js';
import { NARROW, NARROW_OR_NUL, displayWidth, prepareWidths } from './width.js';

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
  width: number;
  unicode: boolean;
  paint: Painter;
}

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Columns with a higher number are dropped first when the terminal is too narrow; 0 never. */
  dropOrder?: number;
  /** Cells tally drew itself (bars): not escaped. Everything else may come from the service. */
  trusted?: boolean;
}

export interface TableSpec {
  columns: Column[];
  rows: string[][];
  /** A last row set apart (totals). */
  footer?: string[];
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const gap = width - displayWidth(text);
  if (gap <= 0) return text;
  return align === 'right' ? SPACES.slice(0, gap) + text : text + SPACES.slice(0, gap);
}
const SPACES = ' '.repeat(512);

const GAP = '  ';

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
    const trusted = columns[i]!.trusted === true;
    const look = (r: number) => {
      const row = lines[r]!;
      const cell = row[i] ?? '';
      // tally's own cells (labels, amounts, bars) hold narrow characters only.
      const mine = trusted && r > 0;
      if (NARROW.test(cell) || (mine && !cell.includes('\u001b'))) {
        if (cell.length > widths[i]!) widths[i] = cell.length;
      } else {
        // Anything else from the service is escaped (it must never drive the terminal).
        if (!mine) row[i] = escapeControl(cell);
        odd.set(r * count + i, -1);
      }
    };
    // One look at a column's joined body text: narrow text (most of it) needs neither escaping
    // nor measuring. The header (the service's field names) and the footer are looked at alone.
    const bodyWidth = plainColumnWidth(rows, i, trusted);
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
  let keep = columns.map((_, i) => i);
  const total = () => keep.reduce((sum, i) => sum + widths[i]!, 0) + GAP.length * (keep.length - 1);
  while (total() > style.width) {
    const droppable = keep.filter((i) => (columns[i]!.dropOrder ?? 0) > 0);
    if (droppable.length === 0) break;
    const drop = droppable.reduce((a, b) => (columns[b]!.dropOrder! > columns[a]!.dropOrder! ? b : a));
    keep = keep.filter((i) => i !== drop);
  }
  const right = columns.map((c) => c.align === 'right');
  const pads = Array.from({ length: Math.max(0, ...widths) + 1 }, (_, n) => ' '.repeat(n));
  const hasOdd = odd.size > 0;
  const line = (r: number) => {
    const row = lines[r]!;
    // Empty cells at the end of a line leave no blanks behind.
    let end = keep.length - 1;
    while (end > 0 && (row[keep[end]!] ?? '') === '') end--;
    let text = '';
    for (let k = 0; k <= end; k++) {
      const i = keep[k]!;
      const cell = row[i] ?? '';
      const gap = widths[i]! - (hasOdd ? (odd.get(r * count + i) ?? cell.length) : cell.length);
      if (k > 0) text += GAP;
      if (gap <= 0 || (k === end && !right[i])) text += cell;
      else if (right[i]) text += pads[gap] + cell;
      else text += cell + pads[gap];
    }
    return text;
  };
  const rule = paint.dim(keep.map((i) => (style.unicode ? '─' : '-').repeat(widths[i]!)).join(GAP));
  const out = [paint.bold(line(0)), rule];
  const bodyEnd = 1 + rows.length;
  for (let r = 1; r < bodyEnd; r++) out.push(line(r));
  if (spec.footer) out.push(rule, paint.bold(line(bodyEnd)));
  return `${out.join('\n')}\n`;
}

/**
 * The widest cell of a column whose body cells are all narrow text (or, for tally's own
 * columns, free of colour codes); undefined otherwise. The cells are joined with NUL, which no
 * narrow text holds: the joined text is narrow apart from exactly one NUL per join, or not.
 */
function plainColumnWidth(rows: string[][], column: number, trusted: boolean): number | undefined {
  if (rows.length === 0) return 0;
  const joined = rows.map((row) => row[column] ?? '').join('\u0000');
  if (trusted ? joined.includes('\u001b') : !NARROW_OR_NUL.test(joined)) return undefined;
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

/** Label/value lines, labels aligned. Values are escaped unless marked as drawn by tally (bars). */
export async function renderPanel(rows: [label: string, value: string, trusted?: boolean][], style: Style): Promise<string> {
  const paint = style.paint;
  await prepareWidths(rows.map(([label]) => label));
  const width = Math.max(...rows.map(([label]) => displayWidth(label)));
  return rows.map(([label, value, trusted]) => `${paint.dim(pad(label, width, 'left'))}  ${trusted ? value : escapeControl(value)}`.trimEnd()).join('\n') + '\n';
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
