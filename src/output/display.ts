// What a display currency adds to a result: on a terminal, one line under it saying the rate,
// its date and its source; in --json, a `display` object (currency, rate, date, source) and, beside
// each amount, its converted value (`balance` keeps its yuan, `balance_usd` is added). An amount
// is a decimal string under a name that says money (the names below), never a count or a share;
// its value is the domain's one conversion (decimal.js, loaded with this module: only with a display currency).
import { type DisplayRate, converted } from '../domain/display-currency.js';
import { escapeControl } from './escape.js';

/** The names of amounts, as tally's documents call them (a name ending so: `spent`, `daily_cost_used`, `projected_month_end`). */
const AMOUNT = /(^|_)(balance|amount|spend|spent|cost|costs|used|limit|remaining|total|lifetime_spend|projected|expected|low|high|middle|charged|booked|estimated|saving|saved|granted|available|quota|in_flight|month_to_date|month_end|average_daily_spend|before|after|change|impact|actual)$/;
const NOT_AMOUNT = /(percent|share|ratio|tokens|calls|count|days|seconds|rate)/;

export function displayFooter(display: DisplayRate): string {
  return `Amounts also in ${display.currency} at ${display.rate} ${display.currency} per yuan (the rate of ${display.date}, ${display.source === '--rate' ? 'given with --rate' : escapeControl(new URL(display.source).host)}); the yuan are the figures.\n`;
}

function isDecimalText(value: unknown): value is string {
  return typeof value === 'string' && /^-?\d{1,100}(\.\d{1,100})?$/.test(value);
}

/** The document with `display` and each amount's converted value beside it (the yuan fields unchanged). */
export function withDisplay(value: unknown, display: DisplayRate): unknown {
  const suffix = `_${display.currency.toLowerCase()}`;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(node as Record<string, unknown>)) {
      out[key] = walk(v);
      if (isDecimalText(v) && AMOUNT.test(key) && !NOT_AMOUNT.test(key) && !key.endsWith(suffix) && !(`${key}${suffix}` in (node as object))) out[`${key}${suffix}`] = converted(v, display);
    }
    return out;
  };
  const walked = walk(value);
  const meta = { currency: display.currency, rate: display.rate, date: display.date, source: display.source };
  return typeof walked === 'object' && walked !== null && !Array.isArray(walked) ? { ...(walked as object), display: meta } : walked;
}
