// What usage costs at other prices (a catalog's repricing, or another model): arithmetic on the
// tokens a key used and the catalog's prices, exact in decimals.
// - `tokens`: the usage gives input and output tokens per model; both priced per token.
// - `scaled`: only an amount is known; every price it was billed at changes by one ratio, so the
//   amount scales by it (said as such).
// - `unknown`: neither; the impact cannot be computed, and is never shown as zero.
import { type JsonObject, isJsonNumber, numberText } from './json.js';
import { isDecimalString } from './decimal-text.js';
import { Decimal } from './money.js';
import type { PriceRow } from './catalog.js';
import { classFields } from './token-classes.js';

export interface ModelUsage {
  /** What the usage says was spent (undefined when it gives no amount). */
  amount: Decimal | undefined;
  /** Tokens in and out, when the usage names them. */
  input: Decimal | undefined;
  output: Decimal | undefined;
  /** Calls (requests), when the usage counts them. */
  calls?: Decimal | undefined;
}

export type RepriceBasis = 'tokens' | 'scaled' | 'unknown';

export interface Repriced {
  basis: RepriceBasis;
  /** At the first prices, and at the second; null when unknown. */
  before: Decimal | null;
  after: Decimal | null;
  /** Why it cannot be computed (basis unknown). */
  why?: string;
}

/** Yuan per 1,000 tokens, as a Decimal (a price the catalog does not state, or states in a form tally cannot read, is '': never zero). */
const per1K = (text: string) => new Decimal(text);

/** The usage priced at `from` and at `to`. A price tally cannot read is never taken as free. */
export function reprice(usage: ModelUsage, from: PriceRow, to: PriceRow): Repriced {
  if (from.perToken !== to.perToken) return unknown(`${to.name} is billed ${to.perToken ? 'per token' : `per ${to.other[0]?.name ?? 'call'}`} and ${from.name} ${from.perToken ? 'per token' : `per ${from.other[0]?.name ?? 'call'}`}: the prices cannot be set against each other`);
  if (usage.input !== undefined && usage.output !== undefined && from.perToken) {
    const missing = [from, to].flatMap((row) => [usage.input!.gt(0) && row.input === '' && `${row.name}'s input price`, usage.output!.gt(0) && row.output === '' && `${row.name}'s output price`].filter(Boolean));
    if (missing.length) return unknown(`the catalog states no price tally can read for ${[...new Set(missing)].join(' and ')}`);
    const at = (row: PriceRow) => (usage.input!.gt(0) ? usage.input!.mul(per1K(row.input)) : new Decimal(0)).plus(usage.output!.gt(0) ? usage.output!.mul(per1K(row.output)) : new Decimal(0)).div(1000);
    return { basis: 'tokens', before: at(from), after: at(to) };
  }
  const ratio = commonRatio(from, to);
  if (usage.amount !== undefined && ratio !== undefined) return { basis: 'scaled', before: usage.amount, after: usage.amount.mul(ratio) };
  return unknown(usage.input === undefined || usage.output === undefined ? 'no tokens per model, and its prices did not change by one ratio' : 'its prices cannot be read');
}

function unknown(why: string): Repriced {
  return { basis: 'unknown', before: null, after: null, why };
}

/**
 * The one ratio every price billed at changes by (`to` / `from`, over the prices `from` charges),
 * or undefined when they change by different ratios, or when `from` charges nothing to scale.
 */
export function commonRatio(from: PriceRow, to: PriceRow): Decimal | undefined {
  const pairs: [string, string][] = from.perToken
    ? [[from.input, to.input], [from.output, to.output]]
    : from.other.map((o) => [o.value, to.other.find((p) => p.name === o.name)?.value ?? '']);
  let ratio: Decimal | undefined;
  for (const [a, b] of pairs) {
    // A price stated on one side only, or in a form tally cannot read: no ratio (never a zero).
    if (a === '' || b === '') {
      if (a === b) continue;
      return undefined;
    }
    const before = per1K(a);
    if (before.isZero()) {
      if (!per1K(b).isZero()) return undefined;
      continue;
    }
    const r = per1K(b).div(before);
    if (ratio !== undefined && !r.eq(ratio)) return undefined;
    ratio = r;
  }
  return ratio;
}

/** Which record fields count input and output tokens (names not published: discovered, by the token classes' one rule). */
export function tokenFields(records: JsonObject[]): { input: string | undefined; output: string | undefined } {
  const fields = classFields(records);
  return { input: fields.input, output: fields.output };
}

/** Which record field counts calls (requests), if any. */
export function callsField(records: JsonObject[]): string | undefined {
  const names = new Set(records.flatMap((r) => Object.keys(r)));
  return [...names].find((n) => /^(requests?|calls?|count|times|num_requests|request_count)$/i.test(n));
}

/**
 * Usage per model from records: amounts (the money field), tokens and calls, every record of a
 * model added up; a count some record of the model does not give is unknown (undefined), never partial.
 */
/**
 * The one rule of spend per model: each model's records added up exactly; a model any of whose
 * records states no amount tally can read (absent, null, a JSON number, text) has an unknown
 * spend (undefined), never the sum of the others and never zero. Every per-model figure
 * (spend by model, the audit, budgets of models, a key's share, the anomalies) adds up by it.
 */
export function modelAmounts(records: JsonObject[], fields: { model: string; spend: string }): Map<string, Decimal | undefined> {
  const amounts = new Map<string, Decimal | undefined>();
  for (const record of records) {
    const model = String(record[fields.model] ?? '');
    const value = record[fields.spend];
    const sum = amounts.has(model) ? amounts.get(model) : new Decimal(0);
    amounts.set(model, sum !== undefined && isDecimalString(value) ? sum.plus(value) : undefined);
  }
  return amounts;
}

export function usagePerModel(records: JsonObject[], fields: { model: string; spend: string }): Map<string, ModelUsage> {
  const tokens = tokenFields(records);
  const calls = callsField(records);
  const usage = new Map<string, ModelUsage>();
  // A count (tokens, calls) added up; one that is not a whole number leaves the model's unknown.
  const add = (a: Decimal | undefined, value: unknown): Decimal | undefined => {
    if (a === undefined) return undefined;
    const text = isJsonNumber(value) ? numberText(value) : typeof value === 'number' ? String(value) : undefined;
    return text === undefined || !/^\d{1,20}$/.test(text) ? undefined : a.plus(text);
  };
  const amounts = modelAmounts(records, fields);
  for (const record of records) {
    const model = String(record[fields.model] ?? '');
    const zero = (field: string | undefined) => (field ? new Decimal(0) : undefined);
    const now = usage.get(model) ?? { amount: undefined, input: zero(tokens.input), output: zero(tokens.output), calls: zero(calls) };
    usage.set(model, {
      amount: amounts.get(model),
      input: tokens.input ? add(now.input, record[tokens.input]) : undefined,
      output: tokens.output ? add(now.output, record[tokens.output]) : undefined,
      calls: calls ? add(now.calls, record[calls]) : undefined,
    });
  }
  return usage;
}
