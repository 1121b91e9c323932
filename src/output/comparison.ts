// How a comparison of two periods reads: the JSON document, CSV, a Markdown table for a pull
// request or a chat message, and a table that fits the terminal.
import type { Context } from '../context.js';
import type { ComparisonRow } from '../domain/comparison.js';
import { Decimal } from '../domain/money.js';
import { type Scope, scopeText } from '../domain/records.js';
import { fixedZone } from '../domain/zone.js';
import type { Comparison } from '../figures/comparison.js';
import { escapeMarkdown } from './escape.js';
import { describeWindow, wallText, windowJson } from './window-text.js';

/** A change in percent: two places, rounded half up; null where the earlier amount is zero. */
export function percentText(value: Decimal | null): string | null {
  return value === null ? null : value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}

/** A row of a comparison in JSON: amounts exact, the change in percent with two places. */
export function comparisonRowJson(row: ComparisonRow) {
  return {
    ...(row.model === undefined ? {} : { model: row.model }),
    current: row.current.toFixed(),
    previous: row.previous.toFixed(),
    change: row.change.toFixed(),
    change_percent: percentText(row.changePercent),
    ...(row.status ? { status: row.status } : {}),
  };
}

/** The comparison document (schemas/usage-compare.schema.json). */
export function comparisonJson(c: Comparison) {
  const zone = fixedZone(c.grid.offset);
  return {
    current: { ...windowJson(c.current, zone), complete: c.currentComplete },
    previous: { ...windowJson(c.previous, zone), complete: true },
    by: c.byModel ? 'model' : 'total',
    currency: 'CNY',
    rows: c.rows.map(comparisonRowJson),
    totals: comparisonRowJson(c.totals),
    // Whose spend it is, as the gateway states it; null when it does not say (or the periods disagree).
    scope: c.scope ?? null,
    ...(c.incomplete ? { incomplete: true } : {}),
  };
}

/** Rows of the comparison with the periods they compare (`YYYY-MM-DD HH:MM` on the day grid, ends excluded) and whether the current one had ended. */
export function comparisonCsv(c: Comparison) {
  const zone = fixedZone(c.grid.offset);
  const head = c.byModel ? ['model'] : [];
  const periods = [wallText(c.previous.start, zone), wallText(c.previous.end, zone), wallText(c.current.start, zone), wallText(c.current.end, zone), String(c.currentComplete)];
  return {
    header: [...head, 'previous', 'current', 'change', 'change_percent', 'status', 'previous_start', 'previous_end', 'current_start', 'current_end', 'current_complete'],
    rows: c.rows.map((r) => [...(c.byModel ? [r.model ?? ''] : []), r.previous.toFixed(), r.current.toFixed(), r.change.toFixed(), percentText(r.changePercent) ?? '', r.status ?? '', ...periods]),
  };
}

function windows(c: Comparison): [string, string] {
  const zone = fixedZone(c.grid.offset);
  return [describeWindow(c.current, zone), describeWindow(c.previous, zone)];
}

function whose(scope: Scope | undefined, byModel: boolean): string {
  return scopeText(scope) ?? (byModel ? 'per model, as the records of usage by model give it' : '');
}

/** A signed amount: `+¥12.50`, `-¥3.00` (every view of a change writes it so). */
export function signed(amount: Decimal, format: (value: Decimal) => string): string {
  return `${amount.isNegative() ? '-' : amount.isZero() ? '' : '+'}${format(amount.abs())}`;
}

/** A change in percent as a cell, with one decimal as every share (`+12.5%`), `new` or `gone` for a model, `—` from nothing. */
export function percentCell(row: Pick<ComparisonRow, 'changePercent' | 'status'>): string {
  if (row.status === 'new') return 'new';
  if (row.status === 'gone') return 'gone';
  const text = row.changePercent === null ? null : row.changePercent.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1);
  if (text === null) return '—';
  return `${text.startsWith('-') ? '' : '+'}${text}%`;
}

/** GitHub-flavoured Markdown: a heading, the table, and what was compared. */
export async function comparisonMarkdown(c: Comparison, exact: boolean): Promise<string> {
  const { formatAmount } = await import('./money.js');
  const amount = (value: Decimal) => formatAmount(value, 'account', { exact });
  const cell = escapeMarkdown;
  const [now, before] = windows(c);
  const head = c.byModel ? '| model | previous | current | change | change % |' : '| | previous | current | change | change % |';
  const rule = c.byModel ? '| --- | ---: | ---: | ---: | ---: |' : '| --- | ---: | ---: | ---: | ---: |';
  const line = (label: string, r: ComparisonRow) => `| ${label} | ${amount(r.previous)} | ${amount(r.current)} | ${signed(r.change, amount)} | ${percentCell(r)} |`;
  const rows = c.byModel ? [...c.rows.map((r) => line(cell(r.model ?? ''), r)), line('**total**', c.totals)] : [line('spend', c.totals)];
  const notes = [`current: ${now}${c.currentComplete ? '' : ' (part: it has not ended, its figures are so far)'}`, `previous: ${before}`, whose(c.scope, c.byModel)].filter(Boolean).map((n) => cell(n));
  if (c.incomplete) notes.push('a period had more records than tally fetched: its figures are partial');
  return ['### tally usage --compare', '', head, rule, ...rows, '', ...notes.map((n) => `${n}  `), ''].join('\n');
}

export async function renderComparison(c: Comparison, ctx: Context): Promise<string> {
  const [{ renderTable }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./money.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const amount = (value: Decimal) => formatAmount(value, 'account', { exact: ctx.options.exact });
  const row = (first: string, r: ComparisonRow) => [first, amount(r.previous), amount(r.current), signed(r.change, amount), percentCell(r)];
  const columns = [
    { header: c.byModel ? 'model' : 'total' },
    { header: 'previous (¥)', align: 'decimal' as const, dropOrder: 2 },
    { header: c.currentComplete ? 'current (¥)' : 'current (part) (¥)', align: 'decimal' as const },
    { header: 'change (¥)', align: 'decimal' as const },
    { header: 'change', align: 'right' as const, dropOrder: 1 },
  ];
  const table = c.byModel
    ? await renderTable({ columns, rows: c.rows.map((r) => row(r.model ?? '', r)), footer: row('total', c.totals) }, style)
    : await renderTable({ columns, rows: [row('spend', c.totals)] }, style);
  const [now, before] = windows(c);
  const notes = [`current: ${now}${c.currentComplete ? '' : ' (part: it has not ended, its figures are so far)'}`, `previous: ${before}`];
  const scope = whose(c.scope, c.byModel);
  if (scope) notes.push(scope);
  if (c.byModel && c.rows.length === 0) notes.unshift('no model cost money in either period');
  if (c.incomplete) notes.push('a period had more records than tally fetched: its figures are partial');
  if (c.byModel) notes.push('sorted by the size of the change; "new": no spend in the previous period, "gone": none in the current one');
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}
