// tally pricing: the public price catalog in yuan per 1M tokens (or per call, second, image),
// from service_pricing, never from the ratios.
import { type Command, Option } from 'commander';
import type { Context } from '../context.js';
import { escapeControl } from '../output/escape.js';
import { ServiceError, TallyError, UsageError } from '../errors.js';
import { readCatalog } from '../api/catalog.js';
import { type CatalogChange, type PriceRow, type SortKey, diffCatalogs, filterRows, isUnpriced, modelName, per1M, sortRows } from '../domain/catalog.js';
import type { JsonObject } from '../domain/json.js';
import { emit } from '../output/emit.js';
import { plural } from '../output/window-text.js';
import { keptVersionTimes, readKeptVersion } from '../settings/pricing-cache.js';
import { parseTimeSpec } from '../domain/window.js';
import { ChangesFound } from '../errors.js';
import { memo } from '../output/memo.js';
import { type CatalogVersion, type LoadedCatalog, baselineFrom, describeAge, loadCatalog } from '../figures/price-listing.js';
import type { Repricing } from '../figures/repricing.js';
import { PRICE_CSV_HEADER, priceCells, priceCsv } from '../output/prices.js';
import { globMatcher } from '../domain/glob.js';

interface PricingOptions {
  model?: string;
  vendor?: string;
  type?: string;
  group?: string;
  sort: SortKey;
  refresh?: boolean;
  offline?: boolean;
  maxAge?: string;
  diff?: boolean;
  against?: string;
  since?: string;
  exitCode?: boolean;
  usageSince?: string;
}

export function configure(command: Command): void {
  command
    .option('--model <glob>', 'only models whose name matches (e.g. "gpt-5*")')
    .option('--vendor <name>', 'only this vendor')
    .option('--type <endpoint-type>', 'only models with this endpoint type')
    .option('--group <group>', 'only models enabled in this group')
    .addOption(new Option('--sort <key>', 'order: by name, or by the input or output price shown').choices(['name', 'input', 'output']).default('name'))
    .option('--refresh', 'fetch the catalog even when the cached one is fresh')
    .option('--offline', 'use the cached catalog only')
    .option('--max-age <seconds>', 'reuse a cached catalog younger than this (default 3600)')
    .option('--diff', 'list models added, removed and re-priced since the previous catalog version')
    .option('--against <version|file>', 'with --diff: compare with this cached pricing_version, or a saved catalog file')
    .option('--since <span|date>', 'with --diff: compare with the kept catalog version closest to that age (7d, 2w, 2026-11-01), and price the repricing on the usage since then')
    .option('--exit-code', 'with --diff: exit 5 when the catalog changed (as git diff --exit-code exits 1)')
    .option('--usage-since <span|date>', "with --diff: the window of the key's usage a repricing is priced on (default --since, else 30d)");
}

export async function run(raw: Record<string, unknown>, ctx: Context, _args: string[], given: (name: string) => boolean = () => false): Promise<void> {
  const options = raw as unknown as PricingOptions;
  for (const flag of ['against', 'since', 'exitCode', 'usageSince'] as const) {
    if (options[flag] !== undefined && !options.diff) throw new UsageError(`--${flag === 'exitCode' ? 'exit-code' : flag === 'usageSince' ? 'usage-since' : flag} goes with --diff`);
  }
  if (options.against !== undefined && options.since !== undefined) throw new UsageError('--against and --since each choose what --diff compares with; give one of them');
  if (options.diff) {
    // Before the fetch: --diff replaces the cached catalog it compares against.
    if (ctx.options.csv) throw new UsageError('--diff prints changes, not rows: use --json instead of --csv');
    for (const flag of ['vendor', 'type', 'group'] as const) if (options[flag] !== undefined) throw new UsageError(`--${flag} does not narrow --diff (a removed model has no ${flag} now); --model does`);
    if (given('sort')) throw new UsageError('--diff lists changes by model name; --sort does not apply');
    return showDiff(ctx, options);
  }
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

async function renderPricing(rows: PriceRow[], loaded: LoadedCatalog, ctx: Context, options: PricingOptions): Promise<string> {
  const [{ renderTable }, { styleFor }, { fitLines }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/wrap.js')]);
  const style = await styleFor(ctx);
  const prices = await priceCells(ctx.options.exact);
  const types = memo((list: string[]) => list.join(', '));
  const table = await renderTable(
    {
      columns: [
        { header: 'model' },
        { header: 'vendor', dropOrder: 3 },
        { header: 'endpoint types', dropOrder: 4 },
        { header: 'input ¥/1M', align: 'decimal' },
        { header: 'output ¥/1M', align: 'decimal' },
        { header: 'cache read ¥/1M', align: 'decimal', dropOrder: 2 },
        { header: 'other prices (¥)', dropOrder: 1 },
      ],
      rows: rows.map((row) => {
        const price = prices(row);
        return [row.name, row.vendor, types(row.types), price[0]!, price[1]!, price[2]!, price[3]!];
      }),
    },
    style,
  );
  const age = describeAge(ctx.now() - loaded.fetchedAt);
  const none = rows.length === 0 && loaded.rows.length > 0 ? `${whatExists(loaded.rows, options)}\n` : '';
  const note = `${none}${rows.length} of ${loaded.rows.length} models · catalog ${escapeControl(loaded.pricingVersion ?? '(no version)')} · ${loaded.source === 'live' ? 'fetched now' : `cached ${age}`} · ${priceSource(rows)}`;
  return `${table}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** Where the prices shown come from; never a source the catalog does not have. */
function priceSource(rows: PriceRow[]): string {
  const unpriced = rows.filter(isUnpriced).length;
  if (rows.length > 0 && unpriced === rows.length) return 'this catalog states no absolute prices (no service_pricing, only ratios, which are not prices): none are shown';
  const source = 'prices from service_pricing, yuan per 1M tokens; other prices (per call, second, image) as the catalog names them';
  return unpriced === 0 ? source : `${source}; no absolute prices for ${plural(unpriced, 'model')}: none shown there`;
}

/** When filters leave nothing: which filter, and what the catalog has for it instead. */
function whatExists(rows: PriceRow[], options: PricingOptions): string {
  const list = (values: Iterable<string>) => {
    const sorted = [...new Set(values)].filter(Boolean).sort();
    return `${sorted.slice(0, 12).map(escapeControl).join(', ')}${sorted.length > 12 ? `, and ${sorted.length - 12} more` : ''}`;
  };
  const parts: string[] = [];
  if (options.vendor !== undefined) parts.push(`vendors: ${list(rows.map((r) => r.vendor))}`);
  if (options.type !== undefined) parts.push(`endpoint types: ${list(rows.flatMap((r) => r.types))}`);
  if (options.group !== undefined) parts.push(`groups: ${list(rows.flatMap((r) => r.groups))}`);
  if (options.model !== undefined) parts.push(`models such as ${list(rows.slice(0, 5).map((r) => r.name))}`);
  return `no model matches these filters; the catalog has ${parts.join('; ') || `${rows.length} models`}`;
}

/**
 * The kept catalog version last seen closest to `since` ago (--diff --since 7d): versions are
 * kept, with the time each was last seen current, whenever a refresh brings a different one.
 */
function keptVersionNear(ctx: Context, since: string, stateDir: string, baseUrl: URL): CatalogVersion | undefined {
  const now = Math.floor(ctx.now() / 1000);
  const at = parseTimeSpec(since, { now, anchor: now, zone: ctx.zone }, '--since') * 1000;
  if (at >= ctx.now()) throw new UsageError(`--since "${since}" is not in the past`);
  const times = ctx.options.demo ? [] : keptVersionTimes(stateDir, baseUrl);
  // Nothing kept yet (a first run): nothing to compare with, said as a first --diff says it.
  if (times.length === 0) return undefined;
  const closest = times.reduce((a, b) => (Math.abs(b - at) < Math.abs(a - at) ? b : a));
  const file = readKeptVersion(stateDir, baseUrl, closest);
  if (!file) throw new UsageError(`the catalog version kept from ${new Date(closest).toISOString()} cannot be read; try another --since`);
  const catalog = readCatalog(file.body, (detail) => new UsageError(`the kept catalog version is unusable (${detail})`));
  ctx.debug(`--diff --since ${since}: the version last seen ${new Date(closest).toISOString()} of ${times.length} kept`);
  // The closest kept version may be far from the age asked: said, never passed off as that age.
  const asked = ctx.now() - at;
  if (Math.abs(closest - at) > Math.max(86_400_000, asked / 10)) {
    ctx.warn(`no catalog version is kept from ${since} ago: comparing with the closest, last seen ${ageText(ctx.now() - closest)} ago (${new Date(closest).toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
  }
  return { pricingVersion: catalog.pricingVersion, records: catalog.models, fetchedAt: file.fetchedAt };
}

/** `23 minutes`, `5 hours`, `12 days`: an age in its largest whole unit. */
function ageText(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 120) return plural(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  return hours < 48 ? plural(hours, 'hour') : plural(Math.round(hours / 24), 'day');
}

async function showDiff(ctx: Context, options: PricingOptions): Promise<void> {
  const loaded = await loadCatalog(ctx, options, { whole: true, forceLive: !options.offline });
  const { readPreviousCatalog } = await import('../settings/pricing-cache.js');
  const client = await ctx.client();
  const stateDir = await ctx.stateDir();
  const olderFile = ctx.options.demo ? undefined : readPreviousCatalog(stateDir, client.baseUrl);
  const older = olderFile && (() => {
    const catalog = readCatalog(olderFile.body, (detail) => new ServiceError(`the previous cached catalog is unusable (${detail})`));
    return { pricingVersion: catalog.pricingVersion, records: catalog.models, fetchedAt: olderFile.fetchedAt };
  })();
  const current: CatalogVersion = { pricingVersion: loaded.pricingVersion, records: loaded.records ?? [], fetchedAt: loaded.fetchedAt };
  let baseline: CatalogVersion | undefined;
  if (options.against !== undefined) baseline = await baselineFrom(ctx, options.against, [options.offline ? current : undefined, loaded.previous, older]);
  else if (options.since !== undefined) baseline = keptVersionNear(ctx, options.since, stateDir, client.baseUrl);
  else baseline = options.offline ? older : loaded.previous;
  const model = options.model ? globMatcher(options.model) : undefined;
  const changes: CatalogChange[] = baseline ? (await diffCatalogs(baseline.records, current.records, () => ctx.checkpoint())).filter((c) => !model || model(c.model)) : [];
  const { impact, why } = baseline ? await impactOf(ctx, changes, baseline, current, options.usageSince ?? options.since) : { impact: undefined, why: undefined };
  const view = impact && (await import('../output/repricing.js'));
  await emit(ctx, {
    json: {
      pricing_version_before: baseline?.pricingVersion ?? null,
      pricing_version_after: current.pricingVersion ?? null,
      compared: baseline !== undefined,
      changes,
      // What the repricing costs this key's usage; null when nothing was repriced or there is no API key to read usage with.
      impact: impact && view ? view.repricingJson(impact) : null,
      ...(why && changes.some((c) => c.kind === 'repriced') ? { impact_note: why } : {}),
    },
    human: async () => {
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
      const [{ renderTable }, { styleFor }, { formatAmount }] = await Promise.all([import('../output/table.js'), import('../output/style.js'), import('../output/money.js')]);
      const exact = ctx.options.exact;
      const price = (field: string, value: string | null) =>
        value === null ? 'none' : field.endsWith('_unit_price') || field === 'cache_read_input_price' ? `${formatAmount(per1M(value), 'unit-price', { exact })}/1M` : formatAmount(value, 'unit-price', { exact });
      const rows = changes.map((c) => [
        c.model,
        c.kind,
        Object.entries(c.prices ?? {}).map(([field, [a, b]]) => `${field} ${price(field, a)} → ${price(field, b)}`).join('; '),
      ]);
      const style = await styleFor(ctx);
      const table = `${await renderTable({ columns: [{ header: 'model' }, { header: 'change' }, { header: 'details' }], rows }, style)}${style.paint.dim(heading)}\n`;
      // Someone browsing the public catalog without a credential is not told about usage they have none of.
      const said = why && changes.some((c) => c.kind === 'repriced') && (await ctx.settings()).credential !== undefined;
      if (!impact || !view) return said ? `${table}${style.paint.dim(`not priced on this key's usage: ${escapeControl(why)}`)}\n` : table;
      return `${table}\n${style.paint.bold('What the repricing does to this key\'s spend')}\n${await view.renderRepricing(impact, ctx, { first: 'model', before: 'old prices', after: 'new prices' })}`;
    },
  });
  if (options.exitCode && changes.length > 0) throw new ChangesFound(`the catalog changed: ${changes.length} model${changes.length === 1 ? '' : 's'} added, removed or re-priced`);
}

/** The repricing priced on the key's usage, or why it is not: nothing repriced, no API key, or usage that could not be read. */
async function impactOf(ctx: Context, changes: CatalogChange[], baseline: CatalogVersion, current: CatalogVersion, since: string | undefined): Promise<{ impact?: Repricing; why?: string }> {
  if (!changes.some((c) => c.kind === 'repriced')) return { why: 'no model was repriced' };
  const settings = await ctx.settings();
  if (settings.credential?.kind !== 'api-key') return { why: "an API key reads the usage a repricing is priced on; this profile has none" };
  const { priceImpact } = await import('../figures/repricing.js');
  try {
    return { impact: await priceImpact(ctx, changes, baseline.records, current.records, since) };
  } catch (error) {
    // The catalog's changes stand on their own: usage that cannot be read leaves the impact unsaid, with the reason.
    if (!(error instanceof TallyError) || error.kind === 'interrupted' || error.kind === 'usage') throw error;
    ctx.debug(`pricing --diff: the key's usage could not be read: ${(error as Error).message}`);
    return { why: `the key's usage could not be read (${ctx.secrets.scrubMessage((error as Error).message)})` };
  }
}
