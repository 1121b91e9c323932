// What a price change costs the key (`pricing --diff`, `check --max-price-impact`) and what its
// usage of one model would cost at another's prices (`tally whatif --swap`): the key's usage per
// model over a window, priced by domain/repricing.ts. No request goes to a generation endpoint.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { didYouMean } from '../domain/suggest.js';
import { type CatalogChange, type PriceRow, modelName, priceRow } from '../domain/catalog.js';
import { changePercent } from '../domain/anomalies.js';
import type { JsonObject } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import type { Scope } from '../domain/records.js';
import { type ModelUsage, type RepriceBasis, reprice, usagePerModel } from '../domain/repricing.js';
import { type UsageWindow } from '../domain/window.js';
import { spendPerModel } from './usage-by-model.js';
import { windowOnGrid } from './usage-series.js';

export interface RepricedRow {
  model: string;
  /** whatif: the model whose prices the usage is set at. */
  other?: string;
  basis: RepriceBasis;
  /** What the usage says was spent on the model in the window. */
  spent: Decimal | undefined;
  before: Decimal | null;
  after: Decimal | null;
  change: Decimal | null;
  changePercent: Decimal | null;
  /** whatif: what the other model cannot do that this one could. */
  notes?: string[];
  /** Why the impact cannot be computed (basis unknown). */
  why?: string;
}

export interface Repricing {
  window: UsageWindow;
  dayOffset: number;
  rows: RepricedRow[];
  /** Repriced models the key did not use in the window (nothing to price). */
  unused: string[];
  /** Over the rows whose impact is known. */
  total: { before: Decimal; after: Decimal; change: Decimal; changePercent: Decimal | null };
  scope: Scope | undefined;
  incomplete: boolean;
}

/** The usage window: --since (default the last 30 days, today included) on the day grid. */
/** The key's usage per model over --since (default 30 days), on the day grid. */
export type KeyUsage = Awaited<ReturnType<typeof keyUsageOver>>;

export async function keyUsageOver(ctx: Context, since: string | undefined) {
  const { window, grid } = await windowOnGrid(ctx, { since: since ?? '30d' }, 'day');
  const found = await spendPerModel(ctx, window);
  return { window, dayOffset: grid.offset, usage: found.fields ? usagePerModel(found.records, found.fields) : new Map<string, ModelUsage>(), scope: found.scope, incomplete: found.incomplete };
}

function row(model: string, usage: ModelUsage, from: PriceRow, to: PriceRow, other?: string): RepricedRow {
  const priced = reprice(usage, from, to);
  const change = priced.before && priced.after ? priced.after.minus(priced.before) : null;
  return { model, ...(other ? { other } : {}), basis: priced.basis, spent: usage.amount, before: priced.before, after: priced.after, change, changePercent: priced.before && priced.after ? changePercent(priced.before, priced.after) : null, ...(priced.why ? { why: priced.why } : {}) };
}

function totalOf(rows: RepricedRow[]): Repricing['total'] {
  const known = rows.filter((r) => r.before !== null && r.after !== null);
  const before = known.reduce((a, r) => a.plus(r.before!), new Decimal(0));
  const after = known.reduce((a, r) => a.plus(r.after!), new Decimal(0));
  return { before, after, change: after.minus(before), changePercent: changePercent(before, after) };
}

const byChange = (a: RepricedRow, b: RepricedRow) => (b.change?.abs() ?? new Decimal(-1)).comparedTo(a.change?.abs() ?? new Decimal(-1)) || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);

/** The repriced models of a catalog change, priced on the key's usage: before at the old prices, after at the new. */
export async function priceImpact(ctx: Context, changes: CatalogChange[], before: JsonObject[], after: JsonObject[], since?: string): Promise<Repricing> {
  const repriced = changes.filter((c) => c.kind === 'repriced');
  const rowsOf = (records: JsonObject[]) => new Map(records.map((r) => [modelName(r), r]));
  const [old, now] = [rowsOf(before), rowsOf(after)];
  const seen = await keyUsageOver(ctx, since);
  const rows: RepricedRow[] = [];
  const unused: string[] = [];
  for (const change of repriced) {
    const usage = seen.usage.get(change.model);
    const from = old.get(change.model);
    const to = now.get(change.model);
    if (!usage || (usage.amount?.isZero() && !usage.input?.gt(0) && !usage.output?.gt(0)) || !from || !to) {
      unused.push(change.model);
      continue;
    }
    rows.push(row(change.model, usage, priceRow(from), priceRow(to)));
  }
  rows.sort(byChange);
  return { window: seen.window, dayOffset: seen.dayOffset, rows, unused, total: totalOf(rows), scope: seen.scope, incomplete: seen.incomplete };
}

/** `MODEL=OTHER`, checked. */
export function parseSwap(text: string): [string, string] {
  const match = /^([^=\s]+)=([^=\s]+)$/.exec(text.trim());
  if (!match) throw new UsageError(`--swap "${text}" is not MODEL=OTHER (e.g. gpt-5=gpt-5-mini)`);
  if (match[1] === match[2]) throw new UsageError(`--swap "${text}" sets a model against itself`);
  return [match[1]!, match[2]!];
}

/** The key's usage of each MODEL priced at OTHER's catalog prices (and at its own, to compare on the same footing). */
export async function swapImpact(ctx: Context, swaps: [string, string][], catalog: JsonObject[], usage: Promise<KeyUsage>): Promise<Repricing> {
  const records = new Map(catalog.map((r) => [modelName(r), r]));
  for (const name of swaps.flat()) {
    if (records.has(name)) continue;
    const meant = didYouMean(name, records.keys());
    throw new UsageError(`"${name}" is not in the price catalog`, { hint: [...(meant ? [meant] : []), 'tally pricing --model NAME lists what is.'].join('\n') });
  }
  const seen = await usage;
  const rows: RepricedRow[] = [];
  const unused: string[] = [];
  for (const [model, other] of swaps) {
    const usage = seen.usage.get(model);
    if (!usage) {
      unused.push(model);
      continue;
    }
    const from = records.get(model)!;
    const to = records.get(other)!;
    rows.push({ ...row(model, usage, priceRow(from), priceRow(to), other), notes: differences(from, to) });
  }
  rows.sort(byChange);
  return { window: seen.window, dayOffset: seen.dayOffset, rows, unused, total: totalOf(rows), scope: seen.scope, incomplete: seen.incomplete };
}

/** What OTHER cannot serve that MODEL served: a shorter context window, reasoning levels or endpoint types it lacks. */
export function differences(model: JsonObject, other: JsonObject): string[] {
  const notes: string[] = [];
  const number = (r: JsonObject, pattern: RegExp) => {
    const name = Object.keys(r).find((k) => pattern.test(k));
    const value = name === undefined ? undefined : Number(String(r[name]));
    return value !== undefined && Number.isFinite(value) ? value : undefined;
  };
  const list = (r: JsonObject, pattern: RegExp) => {
    const name = Object.keys(r).find((k) => pattern.test(k));
    const value = name === undefined ? undefined : r[name];
    return Array.isArray(value) ? value.map(String) : undefined;
  };
  const [a, b] = [number(model, /context/i), number(other, /context/i)];
  if (a !== undefined && b !== undefined && b < a) notes.push(`context window ${b.toLocaleString('en-US')} tokens, not ${a.toLocaleString('en-US')}`);
  const [ea, eb] = [list(model, /reasoning|effort/i), list(other, /reasoning|effort/i)];
  const lacking = ea && eb ? ea.filter((e) => !eb.includes(e)) : [];
  if (lacking.length) notes.push(`no reasoning level ${lacking.join(', ')}`);
  const [ta, tb] = [priceRow(model).types, priceRow(other).types];
  const missing = ta.filter((t) => !tb.includes(t));
  if (missing.length) notes.push(`no endpoint ${missing.join(', ')}`);
  return notes;
}
