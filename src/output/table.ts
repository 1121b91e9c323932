// Tables and key/value panels for people. Loaded only when a human view is rendered.
import Table from 'cli-table3';
import { Chalk, type ChalkInstance } from 'chalk';
import { escapeControl } from './escape.js';

export interface Style {
  color: boolean;
  width: number;
  unicode: boolean;
}

export function painter(style: Pick<Style, 'color'>): ChalkInstance {
  return new Chalk({ level: style.color ? 1 : 0 });
}

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Columns with a higher number are dropped first when the terminal is too narrow. */
  dropOrder?: number;
}

export interface TableSpec {
  columns: Column[];
  rows: string[][];
  /** A last row set apart (totals). */
  footer?: string[];
}

/** A table that fits the terminal: optional columns are dropped before rows are wrapped. */
export function renderTable(spec: TableSpec, style: Style): string {
  const paint = painter(style);
  let keep = spec.columns.map((_, index) => index);
  const render = () => {
    const table = new Table({
      head: keep.map((i) => spec.columns[i]!.header),
      colAligns: keep.map((i) => spec.columns[i]!.align ?? 'left'),
      style: { head: style.color ? ['bold'] : [], border: style.color ? ['grey'] : [], compact: false },
      chars: style.unicode ? undefined : ASCII_BORDERS,
    });
    for (const row of spec.rows) table.push(keep.map((i) => escapeControl(row[i] ?? '')));
    if (spec.footer) table.push(keep.map((i) => paint.bold(escapeControl(spec.footer![i] ?? ''))));
    return table.toString();
  };
  let text = render();
  while (visibleWidth(text) > style.width) {
    const droppable = keep.filter((i) => (spec.columns[i]!.dropOrder ?? 0) > 0);
    if (droppable.length === 0) break;
    const drop = droppable.reduce((a, b) => (spec.columns[b]!.dropOrder! > spec.columns[a]!.dropOrder! ? b : a));
    keep = keep.filter((i) => i !== drop);
    text = render();
  }
  return `${text}\n`;
}

/** Label/value lines, labels aligned. */
export function renderPanel(rows: [label: string, value: string][], style: Style): string {
  const paint = painter(style);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${paint.dim(label.padEnd(width))}  ${value}`).join('\n') + '\n';
}

/** A horizontal bar for a share between 0 and 1. */
export function bar(share: number, width: number, style: Pick<Style, 'unicode' | 'color'>): string {
  const clamped = Math.min(Math.max(share, 0), 1);
  const filled = Math.round(clamped * width);
  const [full, empty] = style.unicode ? ['█', '░'] : ['#', '.'];
  const paint = painter(style);
  const color = clamped >= 0.9 ? paint.red : clamped >= 0.75 ? paint.yellow : paint.green;
  return color(full.repeat(filled)) + paint.dim(empty.repeat(width - filled));
}

function visibleWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  return Math.max(...plain.split('\n').map((line) => [...line].length));
}

const ASCII_BORDERS = {
  top: '-', 'top-mid': '+', 'top-left': '+', 'top-right': '+',
  bottom: '-', 'bottom-mid': '+', 'bottom-left': '+', 'bottom-right': '+',
  left: '|', 'left-mid': '+', mid: '-', 'mid-mid': '+',
  right: '|', 'right-mid': '+', middle: '|',
};
