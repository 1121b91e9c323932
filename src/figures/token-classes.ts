// The token classes of spend per model (usage --by model, the MCP's get_spend_by_model): each
// class the records report, per model and in total, and what the prompt cache saved at the
// catalog's prices (the catalog is read only when cache-read tokens are reported).
import type { Context } from '../context.js';
import type { JsonObject } from '../domain/json.js';
import { Decimal, derivedText } from '../domain/money.js';
import { TOKEN_CLASSES, type TokenClass, cacheSavings, classFields, classTotals } from '../domain/token-classes.js';
import { modelTotals } from './usage-by-model.js';

export interface ModelClasses {
  model: string;
  tokens: Record<TokenClass, Decimal | null>;
  /** null: cannot be computed (`why`). */
  saved: Decimal | null;
  share: Decimal | null;
  why?: string;
}

export interface TokenClasses {
  reported: TokenClass[];
  models: ModelClasses[];
  total: { tokens: Record<TokenClass, Decimal | null>; saved: Decimal | null; share: Decimal | null };
  pricingVersion?: string;
}

/** The classes of these records, per model; undefined when the records count no tokens at all. */
export async function loadTokenClasses(ctx: Context, records: JsonObject[]): Promise<TokenClasses | undefined> {
  const fields = classFields(records);
  const reported = TOKEN_CLASSES.filter((c) => fields[c] !== undefined);
  if (reported.length === 0) return undefined;
  const perModel = modelTotals(records) ?? [];
  let prices: Map<string, import('../domain/catalog.js').PriceRow> | undefined;
  let pricingVersion: string | undefined;
  if (fields.cache_read !== undefined) {
    try {
      const catalog = await (await import('./price-listing.js')).loadCatalog(ctx, {}, { whole: false });
      prices = new Map(catalog.rows.map((row) => [row.name, row]));
      pricingVersion = catalog.pricingVersion;
    } catch (error) {
      ctx.debug(`token classes: the catalog could not be read (${(error as Error).message}); what the cache saved is not computed`);
    }
  }
  const models = perModel.map(({ model, records: own }): ModelClasses => {
    const tokens = classTotals(own, fields);
    if (tokens.cache_read === null) return { model, tokens, saved: null, share: null, why: 'the gateway does not report cache-read tokens' };
    if (!prices) return { model, tokens, saved: null, share: null, why: 'the price catalog could not be read' };
    const s = cacheSavings(tokens, prices.get(model), model);
    return s.saved === null ? { model, tokens, saved: null, share: null, why: s.why } : { model, tokens, saved: s.saved, share: s.share };
  });
  const sum = (cls: TokenClass) => (models.some((m) => m.tokens[cls] === null) ? null : models.reduce((a, m) => a.plus(m.tokens[cls]!), new Decimal(0)));
  const tokens = Object.fromEntries(TOKEN_CLASSES.map((c) => [c, sum(c)])) as Record<TokenClass, Decimal | null>;
  const savedAll = models.every((m) => m.saved !== null || (m.tokens.cache_read !== null && m.tokens.cache_read.isZero())) && fields.cache_read !== undefined && prices;
  const saved = savedAll ? models.reduce((a, m) => a.plus(m.saved ?? 0), new Decimal(0)) : null;
  const share = tokens.cache_read !== null && tokens.input !== null && !tokens.input.isZero() ? tokens.cache_read.div(tokens.input).mul(100) : null;
  return { reported, models, total: { tokens, saved, share }, ...(pricingVersion ? { pricingVersion } : {}) };
}

const ledger = derivedText;
const pct = (value: Decimal | null) => (value === null ? null : value.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1));
const counts = (tokens: Record<TokenClass, Decimal | null>) => Object.fromEntries(TOKEN_CLASSES.map((c) => [c, tokens[c] === null ? null : tokens[c]!.toFixed()]));

/** The document's `token_classes`: classes as counts (null: not reported), the cache's savings in the ledger's 8 places. */
export function tokenClassesJson(classes: TokenClasses) {
  return {
    reported: classes.reported,
    not_reported: TOKEN_CLASSES.filter((c) => !classes.reported.includes(c)),
    models: classes.models.map((m) => ({ model: m.model, ...counts(m.tokens), cache_read_share: pct(m.share), cache_saved: m.saved === null ? null : ledger(m.saved), ...(m.why && m.tokens.cache_read !== null ? { cache_saved_not_computed: m.why } : {}) })),
    total: { ...counts(classes.total.tokens), cache_read_share: pct(classes.total.share), cache_saved: classes.total.saved === null ? null : ledger(classes.total.saved) },
    ...(classes.pricingVersion ? { pricing_version: classes.pricingVersion } : {}),
  };
}
