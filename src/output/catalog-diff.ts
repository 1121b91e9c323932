// How `pricing --diff` reads: the JSON document (the versions, the changes, the impact on the
// key's usage) and the table of changes with the repricing priced on the key's usage under it.
import type { Context } from '../context.js';
import { per1M } from '../domain/catalog.js';
import type { CatalogDiff } from '../figures/catalog-diff.js';
import { describeAge } from '../domain/words.js';
import { escapeControl } from './escape.js';
import { renderRepricing, repricingJson } from './repricing.js';

export function catalogDiffJson(diff: CatalogDiff): Record<string, unknown> {
  const { baseline, current, changes, impact, why } = diff;
  return {
    pricing_version_before: baseline?.pricingVersion ?? null,
    pricing_version_after: current.pricingVersion ?? null,
    compared: baseline !== undefined,
    changes,
    // What the repricing costs this key's usage; null when nothing was repriced or there is no API key to read usage with.
    impact: impact ? repricingJson(impact) : null,
    ...(why && changes.some((c) => c.kind === 'repriced') ? { impact_note: why } : {}),
  };
}

export async function renderCatalogDiff(diff: CatalogDiff, ctx: Context): Promise<string> {
  const { loaded, baseline, current, changes, impact, why } = diff;
  const options = { since: diff.since, offline: diff.offline };
  // The version is the service's text: escaped, as every piece of data on a terminal.
  const version = (v: string | undefined) => (v === undefined ? '(no version)' : escapeControl(v));
  if (!baseline) {
    if (options.since !== undefined) return `No earlier catalog version is kept yet (tally keeps one each time a refresh brings a changed catalog); saved this one (version ${version(current.pricingVersion)}) for the next --diff.\n`;
    return options.offline
      ? `Only one catalog version is cached (${version(current.pricingVersion)}); --diff compares once a refresh brings a different one.\n`
      : `No earlier catalog was cached; saved this one (${loaded.rows.length} models, version ${version(current.pricingVersion)}) for the next --diff.\n`;
  }
  const heading = `catalog ${version(baseline.pricingVersion)}${baseline.fetchedAt ? ` (fetched ${describeAge(ctx.now() - baseline.fetchedAt)})` : ''} → ${version(current.pricingVersion)}${options.offline ? ' (cached)' : ''}`;
  if (changes.length === 0) return `No changes: ${heading}.\n`;
  const [{ renderTable }, { styleFor }, { formatAmount }, { changePercent }, { percentCell }, { Decimal }] = await Promise.all([import('./table.js'), import('./style.js'), import('./money.js'), import('../domain/anomalies.js'), import('./comparison.js'), import('../domain/money.js')]);
  // How much a price moved, as every comparison says it (`+25.0%`); nothing where there was no price before.
  const moved = (a: string | null, b: string | null) => {
    const percent = a === null || b === null ? null : changePercent(new Decimal(a), new Decimal(b));
    return percent === null ? '' : ` (${percentCell({ changePercent: percent })})`;
  };
  const exact = ctx.options.exact;
  const price = (field: string, value: string | null) =>
    value === null ? 'none' : field.endsWith('_unit_price') || field === 'cache_read_input_price' ? `${formatAmount(per1M(value), 'unit-price', { exact })}/1M` : formatAmount(value, 'unit-price', { exact });
  const rows = changes.map((c) => [
    c.model,
    c.kind,
    Object.entries(c.prices ?? {}).map(([field, [a, b]]) => `${field} ${price(field, a)} → ${price(field, b)}${moved(a, b)}`).join('; '),
  ]);
  const style = await styleFor(ctx);
  const table = `${await renderTable({ columns: [{ header: 'model' }, { header: 'change' }, { header: 'details' }], rows }, style)}${style.paint.dim(heading)}\n`;
  // Someone browsing the public catalog without a credential is not told about usage they have none of.
  const said = why && changes.some((c) => c.kind === 'repriced') && (await ctx.settings()).credential !== undefined;
  if (!impact) return said ? `${table}${style.paint.dim(`not priced on this key's usage: ${escapeControl(why)}`)}\n` : table;
  return `${table}\n${style.paint.bold('What the repricing does to this key\'s spend')}\n${await renderRepricing(impact, ctx, { first: 'model', before: 'old prices', after: 'new prices' })}`;
}
