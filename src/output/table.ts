// Tables and key/value panels for people. Loaded only when a human view is rendered.
// Columns are laid out directly (aligned, no per-cell box drawing): a 2,208-row usage table
// renders in milliseconds, where a boxed-table library took over half a second.
import { escapeControl } from './escape.js';

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

// Latin, general punctuation (dashes, ellipsis), arrows, box drawing and block elements:
// one column per UTF-16 unit, no library call needed.
// (Not U+2028-U+202F: line and paragraph separators and the bidirectional overrides.)
const NARROW = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u259f]*$/;
const NARROW_OR_NUL = /^[\x00\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u259f]*$/;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

// string-width sets up Unicode segmentation when loaded (~30 ms here): load it only for text
// that needs it (CJK, emoji, combining marks), which most tables never hold.
let stringWidth: ((text: string) => number) | undefined;

async function loadStringWidth(): Promise<void> {
  stringWidth ??= (await import('string-width')).default;
}

/** Columns a string occupies on a terminal (wide characters count two, colour codes none). */
export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  const plain = text.includes('\u001b') ? text.replace(ANSI, '') : text;
  if (NARROW.test(plain)) return plain.length;
  return stringWidth ? stringWidth(plain) : [...plain].length;
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
  const columns = spec.columns.length;
  const trusted = spec.columns.map((c) => c.trusted === true);
  const lines = [spec.columns.map((c) => c.header), ...spec.rows, ...(spec.footer ? [spec.footer] : [])];
  // One look at each cell: narrow text (most of it) needs neither escaping nor measuring;
  // anything else from the service is escaped (it must never drive the terminal) and measured.
  // Headers are the service's field names: never trusted.
  const measured = new Array<number>(lines.length * columns);
  // A column whose cells are all narrow (most are) is seen in one look at its joined text.
  // (tally's own columns are narrow by construction and need no look.)
  const narrowColumns = spec.columns.map((_, i) => !trusted[i] && columnIsNarrow(spec.rows, i));
  let wide = false;
  for (let r = 0; r < lines.length; r++) {
    const row = lines[r]!;
    const mayTrust = r > 0;
    const body = r > 0 && r <= spec.rows.length;
    for (let i = 0; i < columns; i++) {
      const cell = row[i] ?? '';
      if (body && narrowColumns[i]) {
        measured[r * columns + i] = cell.length;
      } else if (mayTrust && trusted[i] && !cell.includes('\u001b')) {
        // tally's own cells (labels, amounts, bars) hold narrow characters only.
        measured[r * columns + i] = cell.length;
      } else if (NARROW.test(cell)) {
        measured[r * columns + i] = cell.length;
      } else {
        if (!(mayTrust && trusted[i])) row[i] = escapeControl(cell);
        measured[r * columns + i] = -1;
        wide = true;
      }
    }
  }
  if (wide) {
    await loadStringWidth();
    for (let k = 0; k < measured.length; k++) {
      if (measured[k]! < 0) measured[k] = displayWidth(lines[Math.floor(k / columns)]![k % columns] ?? '');
    }
  }
  const widths = spec.columns.map((_, i) => {
    let width = 0;
    for (let r = 0; r < lines.length; r++) if (measured[r * columns + i]! > width) width = measured[r * columns + i]!;
    return width;
  });
  let keep = spec.columns.map((_, i) => i);
  const total = () => keep.reduce((sum, i) => sum + widths[i]!, 0) + GAP.length * (keep.length - 1);
  while (total() > style.width) {
    const droppable = keep.filter((i) => (spec.columns[i]!.dropOrder ?? 0) > 0);
    if (droppable.length === 0) break;
    const drop = droppable.reduce((a, b) => (spec.columns[b]!.dropOrder! > spec.columns[a]!.dropOrder! ? b : a));
    keep = keep.filter((i) => i !== drop);
  }
  const right = spec.columns.map((c) => c.align === 'right');
  const pads = Array.from({ length: Math.max(0, ...widths) + 1 }, (_, n) => ' '.repeat(n));
  const last = keep.length - 1;
  const line = (r: number) => {
    const row = lines[r]!;
    let text = '';
    for (let k = 0; k <= last; k++) {
      const i = keep[k]!;
      const cell = row[i] ?? '';
      const gap = widths[i]! - measured[r * columns + i]!;
      if (k > 0) text += GAP;
      if (gap <= 0) text += cell;
      else if (right[i]) text += pads[gap] + cell;
      else text += k === last ? cell : cell + pads[gap];
    }
    // Only an empty last cell leaves blanks at the end of a line.
    return (row[keep[last]!] ?? '') === '' ? text.trimEnd() : text;
  };
  const rule = paint.dim(keep.map((i) => (style.unicode ? '─' : '-').repeat(widths[i]!)).join(GAP));
  const out = [paint.bold(line(0)), rule];
  const bodyEnd = 1 + spec.rows.length;
  for (let r = 1; r < bodyEnd; r++) out.push(line(r));
  if (spec.footer) out.push(rule, paint.bold(line(bodyEnd)));
  return `${out.join('\n')}\n`;
}

/**
 * Whether every cell of a column is narrow text. The cells are joined with NUL, which no
 * narrow text holds: the joined text is narrow apart from exactly one NUL per join, or not.
 */
function columnIsNarrow(rows: string[][], column: number): boolean {
  if (rows.length === 0) return true;
  const joined = rows.map((row) => row[column] ?? '').join('\u0000');
  if (!NARROW_OR_NUL.test(joined)) return false;
  let separators = 0;
  for (let at = joined.indexOf('\u0000'); at !== -1; at = joined.indexOf('\u0000', at + 1)) separators++;
  return separators === rows.length - 1;
}

/** Label/value lines, labels aligned. Values are escaped unless marked as drawn by tally (bars). */
export async function renderPanel(rows: [label: string, value: string, trusted?: boolean][], style: Style): Promise<string> {
  const paint = style.paint;
  if (rows.some(([label]) => !NARROW.test(label))) await loadStringWidth();
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
