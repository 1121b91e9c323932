// `tally logs --follow` as it is read: on a terminal a live table (a row per call as it lands,
// fixed columns chosen from the first calls) with a status line under it that is redrawn in
// place (calls, running total, the rate of spend, what the poll is doing); on a pipe one JSON
// record per line, flushed with each call (no status line: it goes to stderr only on a terminal).
import type { Context } from '../context.js';
import type { CallFields } from '../domain/calls.js';
import { type JsonObject, type JsonValue, isJsonNumber, jsonText, numberText } from '../domain/json.js';
import { describeColumns, timeSeconds } from '../domain/records.js';
import { type Zone, dateText, isCalendarSecond, two, wallClock } from '../domain/zone.js';
import { escapeControl } from './escape.js';
import { formatAmount, formatCount } from './money.js';
import { shorten } from './table.js';
import { displayWidth, prepareWidths } from './width.js';
import { plural } from './window-text.js';

interface FollowColumn {
  name: string;
  /** Times as HH:MM:SS, or with the month and day (`11-26 22:05:13`) when the calls span days. */
  kind: 'time' | 'date' | 'text' | 'number' | 'money';
  width: number;
}

const TEXT_NAMES = /model|status|key|user|channel|group/i;
const COUNT_NAMES = /token|count|calls|requests/i;

/**
 * The columns of the live table: the time, the model and a few other texts, the counts of tokens,
 * the cost. Each text is as wide as its values (the model at most 40, others 24). On a narrow
 * terminal columns give way in this order: a column whose value never varies (a status that says
 * `success` on every row), the counts, the other texts; the time, the model and the cost stay, and
 * only then is the model cut.
 */
export function followColumns(records: JsonObject[], fields: CallFields, width: number, withDate: boolean): FollowColumn[] {
  const described = describeColumns(records);
  const model = described.find((c) => c.kind === 'text' && /model/i.test(c.name));
  const texts = [...(model ? [model] : []), ...described.filter((c) => c !== model && c.kind === 'text' && TEXT_NAMES.test(c.name))].slice(0, 2);
  const counts = described.filter((c) => c.kind === 'number' && COUNT_NAMES.test(c.name)).slice(0, 2);
  const natural = (name: string, cap: number) => Math.min(cap, Math.max(name.length, 8, ...records.map((r) => displayWidth(cellText(r[name])))));
  const varies = (name: string) => new Set(records.map((r) => JSON.stringify(r[name] ?? null))).size > 1;
  const columns: (FollowColumn & { keep?: true; constant?: boolean })[] = [];
  if (fields.time) columns.push({ name: fields.time, kind: withDate ? 'date' : 'time', width: Math.max(fields.time.length, withDate ? 14 : 8), keep: true });
  for (const c of texts) columns.push({ name: c.name, kind: 'text', width: natural(c.name, c === model ? 40 : 24), constant: records.length > 1 && !varies(c.name), ...(c === model ? { keep: true as const } : {}) });
  for (const c of counts) columns.push({ name: c.name, kind: 'number', width: Math.max(c.name.length, 9), constant: records.length > 1 && !varies(c.name) });
  if (fields.cost) columns.push({ name: fields.cost, kind: 'money', width: Math.max(fields.cost.length + 4, 11), keep: true });
  const total = () => columns.reduce((sum, c) => sum + c.width + 2, -2);
  const dropLast = (which: (c: (typeof columns)[number]) => boolean) => {
    const index = columns.findLastIndex((c) => !c.keep && which(c));
    if (index >= 0) columns.splice(index, 1);
    return index >= 0;
  };
  while (total() > width && (dropLast((c) => c.constant === true) || dropLast((c) => c.kind === 'number') || dropLast((c) => c.kind === 'text'))) continue;
  // Still too wide: the model is cut last, never below 8 columns.
  const modelColumn = columns.find((c) => c.kind === 'text');
  if (modelColumn && total() > width) modelColumn.width = Math.max(8, modelColumn.width - (total() - width));
  return columns.map(({ keep: _keep, constant: _constant, ...c }) => c);
}

/** A value as the table's text shows it (for the width it needs). */
function cellText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return escapeControl(jsonText(value));
}

/** A cell padded (or cut, as tables cut them) to its column's width. */
function fit(text: string, width: number, align: 'left' | 'right'): string {
  const cut = displayWidth(text) > width ? shorten(text, width) : text;
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return align === 'left' ? cut + pad : pad + cut;
}

function cell(column: FollowColumn, value: JsonValue | undefined, zone: Zone): string {
  if (value === undefined || value === null) return '';
  if (column.kind === 'time' || column.kind === 'date') {
    const t = timeSeconds(value);
    if (t === undefined || !isCalendarSecond(t)) return escapeControl(jsonText(value));
    const c = wallClock(Math.floor(t), zone);
    const time = `${two(c.hour)}:${two(c.minute)}:${two(c.second)}`;
    return column.kind === 'date' ? `${dateText(c).slice(5)} ${time}` : time;
  }
  if (column.kind === 'money' && typeof value === 'string') return formatAmount(value, 'per-call');
  if (isJsonNumber(value)) return formatCount(numberText(value));
  return escapeControl(jsonText(value));
}

/** The header line of the live table. */
export async function followHeader(columns: FollowColumn[]): Promise<string> {
  await prepareWidths(columns.map((c) => c.name));
  return columns.map((c) => fit(c.kind === 'money' ? `${c.name} (¥)` : escapeControl(c.name), c.width, c.kind === 'number' || c.kind === 'money' ? 'right' : 'left')).join('  ');
}

/** One call as a row of the live table. */
export async function followRow(columns: FollowColumn[], record: JsonObject, zone: Zone): Promise<string> {
  const cells = columns.map((c) => cell(c, record[c.name], zone));
  await prepareWidths(cells);
  return columns.map((c, i) => fit(cells[i]!, c.width, c.kind === 'number' || c.kind === 'money' ? 'right' : 'left')).join('  ');
}

export interface FollowTally {
  calls: number;
  spent: string;
  /** ¥ a minute over the time followed. */
  perMinute: string;
  minutes: number;
  /** Calls whose cost could not be read as money (not added, never as zero). */
  unpriced: number;
}

/** `34 calls · ¥1.23 · ¥0.10 a minute`: the line under the table and the summary Ctrl-C prints. */
export function tallyText(t: FollowTally): string {
  const parts = [plural(t.calls, 'call'), formatAmount(t.spent, 'account'), `${formatAmount(t.perMinute, 'per-call')} a minute`];
  if (t.unpriced) parts.push(`${formatCount(String(t.unpriced))} without a readable cost (not added)`);
  return parts.join(' · ');
}


/** How long was followed, in the unit that reads best: `30 seconds`, `12 minutes`, `30.0 hours`. */
export function spanText(minutes: number): string {
  if (minutes < 1.5) return plural(Math.round(minutes * 60), 'second');
  if (minutes < 90) return plural(Math.round(minutes), 'minute');
  return `${(minutes / 60).toFixed(1)} hours`;
}

/** Writes the live table: rows above, the status line kept at the bottom and redrawn in place. */
export function liveWriter(ctx: Context): { rows(lines: string[]): void; status(text: string): void; done(): void } {
  let status = '';
  const clear = () => (status ? '\r\u001b[2K' : '');
  return {
    rows(lines) {
      if (lines.length === 0) return;
      ctx.io.out(`${clear()}${lines.join('\n')}\n${status}`);
    },
    status(text) {
      const width = Math.max(10, ctx.io.width - 1);
      status = fit(text, width, 'left').trimEnd();
      ctx.io.out(`\r\u001b[2K${status}`);
    },
    done() {
      if (status) ctx.io.out('\r\u001b[2K');
      status = '';
    },
  };
}

