// tally pricing: the public price catalog in yuan per 1M tokens (or per call, second, image),
// from service_pricing, never from the ratios.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { CommandLine } from '../cli/command.js';
import { filterRows, modelName, sortRows } from '../domain/catalog.js';
import type { JsonObject } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { loadCatalogDiff } from '../figures/catalog-diff.js';
import { ChangesFound } from '../errors.js';
import { type PricingOptions, loadCatalog } from '../figures/price-listing.js';
import { PRICE_CSV_HEADER, priceCsv, renderPricing } from '../output/prices.js';


export const flags = declareFlags({
  model: { kind: 'value', value: 'glob', help: 'only models whose name matches (e.g. "gpt-5*")' },
  vendor: { kind: 'value', value: 'name', help: 'only this vendor' },
  type: { kind: 'value', value: 'endpoint-type', help: 'only models with this endpoint type' },
  group: { kind: 'value', value: 'group', help: 'only models enabled in this group' },
  sort: { kind: 'value', value: 'key', help: 'order: by name, or by the input or output price shown', choices: ['name', 'input', 'output'], default: 'name' },
  refresh: { kind: 'switch', help: 'fetch the catalog even when the cached one is fresh' },
  offline: { kind: 'switch', help: 'use the cached catalog only' },
  maxAge: { kind: 'value', value: 'seconds', help: 'reuse a cached catalog younger than this (default 3600)' },
  diff: { kind: 'switch', help: 'list models added, removed and re-priced since the previous catalog version' },
  against: { kind: 'value', value: 'version|file', help: 'with --diff: compare with this cached pricing_version, or a saved catalog file' },
  since: { kind: 'value', value: 'span|date', help: 'with --diff: compare with the kept catalog version closest to that age (7d, 2w, 2026-11-01), and price the repricing on the usage since then' },
  exitCode: { kind: 'switch', help: 'with --diff: exit 5 when the catalog changed (as git diff --exit-code exits 1)' },
  usageSince: { kind: 'value', value: 'span|date', help: "with --diff: the window of the key's usage a repricing is priced on (default --since, else 30d)" },
});

export function parse(options: FlagValues<typeof flags>, line: CommandLine): PricingOptions {
  for (const flag of ['against', 'since', 'exitCode', 'usageSince'] as const) {
    if (options[flag] !== undefined && !options.diff) throw new UsageError(`--${flag === 'exitCode' ? 'exit-code' : flag === 'usageSince' ? 'usage-since' : flag} goes with --diff`);
  }
  if (options.against !== undefined && options.since !== undefined) throw new UsageError('--against and --since each choose what --diff compares with; give one of them');
  if (options.diff) {
    if (line.output.csv) throw new UsageError('--diff prints changes, not rows: use --json instead of --csv');
    for (const flag of ['vendor', 'type', 'group'] as const) if (options[flag] !== undefined) throw new UsageError(`--${flag} does not narrow --diff (a removed model has no ${flag} now); --model does`);
    if (line.given('sort')) throw new UsageError('--diff lists changes by model name; --sort does not apply');
  }
  return options;
}

export async function run(options: PricingOptions, ctx: Context): Promise<void> {
  if (options.diff) return showDiff(ctx, options);
  const loaded = await loadCatalog(ctx, options, { whole: ctx.options.json });
  const rows = sortRows(filterRows(loaded.rows, options, () => ctx.checkDeadline()), options.sort);
  await emit(ctx, {
    json: () => {
      // The records exactly as sent, in the order and selection of the rows (two records with one name both kept).
      const byName = new Map<string, JsonObject[]>();
      for (const record of loaded.records ?? []) {
        const list = byName.get(modelName(record));
        if (list) list.push(record);
        else byName.set(modelName(record), [record]);
      }
      const taken = new Map<string, number>();
      return {
        pricing_version: loaded.pricingVersion ?? null,
        models: rows.map((row) => {
          const index = taken.get(row.name) ?? 0;
          taken.set(row.name, index + 1);
          return byName.get(row.name)![index]!;
        }),
      };
    },
    csv: () => ({
      header: ['model', 'vendor', 'endpoint_types', 'billing_mode', ...PRICE_CSV_HEADER],
      rows: rows.map((row) => [row.name, row.vendor, row.types.join(' '), row.billingMode, ...priceCsv(row)]),
    }),
    human: () => renderPricing(rows, loaded, ctx, options),
  });
}

async function showDiff(ctx: Context, options: PricingOptions): Promise<void> {
  const diff = await loadCatalogDiff(ctx, options);
  const view = await import('../output/catalog-diff.js');
  await emit(ctx, { json: () => view.catalogDiffJson(diff), human: () => view.renderCatalogDiff(diff, ctx) });
  if (options.exitCode && diff.changes.length > 0) throw new ChangesFound(`the catalog changed: ${diff.changes.length} model${diff.changes.length === 1 ? '' : 's'} added, removed or re-priced`);
}
