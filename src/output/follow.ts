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

/** The columns of the live table: the time, the model and a few other texts, the counts of tokens, the cost; as wide as the terminal allows. */
export function followColumns(records: JsonObject[], fields: CallFields, width: number, withDate: boolean): FollowColumn[] {
  const described = describeColumns(records);
  const texts = described.filter((c) => c.kind === 'text' && TEXT_NAMES.test(c.name)).slice(0, 2);
  const counts = described.filter((c) => c.kind === 'number' && COUNT_NAMES.test(c.name)).slice(0, 2);
  const columns: FollowColumn[] = [];
  if (fields.time) columns.push({ name: fields.time, kind: withDate ? 'date' : 'time', width: Math.max(fields.time.length, withDate ? 14 : 8) });
  for (const c of texts) columns.push({ name: c.name, kind: 'text', width: Math.max(c.name.length, 12) });
  for (const c of counts) columns.push({ name: c.name, kind: 'number', width: Math.max(c.name.length, 9) });
  if (fields.cost) columns.push({ name: fields.cost, kind: 'money', width: Math.max(fields.cost.length + 4, 11) });
  // The text columns take what the terminal has left (at most 32 columns each, at least 8); on a
  // narrow one the counts give way first, then the second text: the time, the model and the cost stay.
  const layout = () => {
    const fixed = columns.reduce((sum, c) => sum + (c.kind === 'text' ? 0 : c.width + 2), 0);
    const textColumns = columns.filter((c) => c.kind === 'text');
    const share = textColumns.length ? Math.floor((width - fixed) / textColumns.length) - 2 : 0;
    for (const c of textColumns) c.width = Math.max(8, Math.min(32, share));
    return columns.reduce((sum, c) => sum + c.width + 2, -2);
  };
  while (layout() > width) {
    const drop = columns.findLastIndex((c) => c.kind === 'number');
    const text = columns.filter((c) => c.kind === 'text');
    if (drop >= 0) columns.splice(drop, 1);
    else if (text.length > 1) columns.splice(columns.indexOf(text[text.length - 1]!), 1);
    else break;
  }
  return columns;
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

