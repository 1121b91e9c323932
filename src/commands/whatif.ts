// tally whatif --swap MODEL=OTHER: the key's usage of MODEL over a window, priced at OTHER's
// catalog prices beside MODEL's own, with the saving or the cost, and what OTHER cannot serve.
// Arithmetic on usage and the catalog: no request goes to a generation endpoint.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';

export function configure(command: Command): void {
  command
    .option('--swap <model=other>', "price the key's usage of MODEL at OTHER's prices (repeatable)", (value: string, all: string[] = []) => [...all, value])
    .option('--since <span|date>', "the window of the key's usage (default 30d, today included)")
    .option('--refresh', 'fetch the price catalog even when the cached one is fresh')
    .option('--offline', 'use the cached price catalog only');
}

export async function run(raw: Record<string, unknown>, ctx: Context): Promise<void> {
  const swaps = (raw.swap as string[] | undefined) ?? [];
  if (swaps.length === 0) throw new UsageError('tally whatif needs --swap MODEL=OTHER (e.g. --swap gpt-5=gpt-5-mini; repeatable)');
  const [{ keyUsageOver, parseSwap, swapImpact }, { loadCatalog }, view] = await Promise.all([import('../figures/repricing.js'), import('../figures/price-listing.js'), import('../output/repricing.js')]);
  const pairs = swaps.map(parseSwap);
  // The window is checked before anything is asked (the catalog comes first).
  await (await import('../figures/usage-series.js')).checkWindow(ctx, { since: (raw.since as string | undefined) ?? '30d' }, 'day');
  // The catalog and the key's usage do not depend on each other: asked together.
  const usage = keyUsageOver(ctx, raw.since as string | undefined);
  usage.catch(() => undefined);
  const catalog = await loadCatalog(ctx, { refresh: raw.refresh === true, offline: raw.offline === true }, { whole: true });
  const repricing = await swapImpact(ctx, pairs, catalog.records ?? [], usage);
  await emit(ctx, {
    json: () => ({ pricing_version: catalog.pricingVersion ?? null, ...view.repricingJson(repricing) }),
    human: () => view.renderRepricing(repricing, ctx, { first: 'swap', before: 'at its prices', after: 'at the other' }),
  });
}
