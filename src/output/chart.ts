// A metric over a window as a line chart that fits the terminal (asciichart): a 92-day hourly
// window is 2,208 rows as a table but one screen as a chart. When there are more buckets than
// columns, neighbouring buckets are added up exactly into one column each. The axis labels are
// exact amounts (or counts); only the drawing itself works in doubles.
import type { Decimal } from '../domain/money.js';
import { type AmountKind, formatAmount, formatCount } from './money.js';

export interface ChartInput {
  /** The metric's value per bucket, as exact decimal text ('' for none). */
  values: string[];
  /** A label per bucket (its start), for the axis under the chart. */
  labels: string[];
  /** Amounts are shown in yuan; counts as counts. */
  kind: AmountKind | 'count';
  /** Columns the whole chart may take, labels included (Infinity on a pipe: 80 is used). */
  width: number;
  height: number;
  colour: boolean;
  /** What one bucket is (day, hour): said when columns add several up. */
  unit: string;
}

export interface Chart {
  text: string;
  /** Buckets added up per column (1 when every bucket has a column of its own). */
  perColumn: number;
}

export async function renderChart(input: ChartInput): Promise<Chart> {
  const [{ default: asciichart }, { Decimal }] = await Promise.all([import('asciichart'), import('../domain/money.js')]);
  const width = Number.isFinite(input.width) ? input.width : 80;
  const values = input.values.map((v) => new Decimal(v === '' ? 0 : v));
  const height = Math.max(2, input.height);
  const label = (value: Decimal) => (input.kind === 'count' ? formatCount(value.toDecimalPlaces(0).toFixed()) : formatAmount(value, input.kind));
  const maxOf = (list: Decimal[]) => list.reduce((a, b) => (b.gt(a) ? b : a), new Decimal(0));
  const minOf = (list: Decimal[]) => list.reduce((a, b) => (b.lt(a) ? b : a), new Decimal(0));
  // Tick labels, top to bottom, exact: top - row * (top - bottom) / height. The range holds zero
  // and every value, refunds (negative amounts) included, so each label names the row it is on.
  const ticksFor = (top: Decimal, bottom: Decimal) => Array.from({ length: height + 1 }, (_, row) => label(top.minus(top.minus(bottom).mul(row).div(height))));
  const labelWidth = Math.max(...ticksFor(maxOf(values), minOf(values)).map((t) => t.length));
  const plotWidth = Math.max(10, width - labelWidth - 4);
  const perColumn = Math.max(1, Math.ceil(values.length / plotWidth));
  const columns: Decimal[] = [];
  const columnLabels: string[] = [];
  for (let i = 0; i < values.length; i += perColumn) {
    columns.push(values.slice(i, i + perColumn).reduce((a, b) => a.plus(b), new Decimal(0)));
    columnLabels.push(input.labels[i] ?? '');
  }
  // Added up, columns may exceed the largest bucket: the axis follows what is drawn.
  const bottom = minOf(columns);
  // All zero: one yuan (or one call) of height, so the zero line sits at the bottom.
  const top = maxOf(columns).eq(bottom) ? bottom.plus(1) : maxOf(columns);
  const axis = ticksFor(top, bottom);
  const axisWidth = Math.max(...axis.map((t) => t.length));
  const series = columns.map((c: Decimal) => c.toNumber());
  const plot = asciichart.plot(series.length > 0 ? series : [0], {
    height,
    min: bottom.toNumber(),
    max: top.toNumber(),
    // asciichart puts a label in one cell left of the axis: the label and its margins are that cell.
    offset: 2,
    format: (_x: number, row: number) => ` ${(axis[row] ?? '').padStart(axisWidth)} `,
    colors: input.colour ? [asciichart.green] : undefined,
  });
  // The first and last bucket's labels under the plot, left and right.
  const first = columnLabels[0] ?? '';
  const last = columnLabels.at(-1) ?? '';
  const indent = axisWidth + 3;
  const xAxis = `${' '.repeat(indent)}${first}${' '.repeat(Math.max(2, columns.length - first.length - last.length))}${last}`;
  return { text: `${plot}\n${xAxis}\n`, perColumn };
}
