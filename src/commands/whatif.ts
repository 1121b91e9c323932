// tally whatif --swap MODEL=OTHER: the key's usage of MODEL over a window, priced at OTHER's
// catalog prices beside MODEL's own, with the saving or the cost, and what OTHER cannot serve.
// Arithmetic on usage and the catalog: no request goes to a generation endpoint.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { emit } from '../output/emit.js';
import { parseSwap } from '../figures/repricing.js';

export const flags = declareFlags({
  swap: { kind: 'list', value: 'model=other', help: "price the key's usage of MODEL at OTHER's prices (repeatable)" },
  since: { kind: 'value', value: 'span|date', help: "the window of the key's usage (default 30d, today included)" },
  refresh: { kind: 'switch', help: 'fetch the price catalog even when the cached one is fresh' },
  offline: { kind: 'switch', help: 'use the cached price catalog only' },
});

/** What `tally whatif` was asked: the swaps, the window of the key's usage, how the catalog is had. */
export interface WhatifRequest {
  /** MODEL and OTHER of each --swap. */
  swaps: [string, string][];
  since: string | undefined;
  refresh: boolean;
  offline: boolean;
}

export function parse(given: FlagValues<typeof flags>): WhatifRequest {
  const swaps = given.swap ?? [];
  if (swaps.length === 0) throw new UsageError('tally whatif needs --swap MODEL=OTHER (e.g. --swap gpt-5=gpt-5-mini; repeatable)');
  return { swaps: swaps.map(parseSwap), since: given.since, refresh: given.refresh === true, offline: given.offline === true };
}

export async function run(request: WhatifRequest, ctx: Context): Promise<void> {
  const [{ keyUsageOver, swapImpact }, { loadCatalog }, view] = await Promise.all([import('../figures/repricing.js'), import('../figures/price-listing.js'), import('../output/repricing.js')]);
  const pairs = request.swaps;
  // The window is checked before anything is asked (the catalog comes first).
  await (await import('../figures/usage-series.js')).checkWindow(ctx, { since: request.since ?? '30d' }, 'day');
  // The catalog and the key's usage do not depend on each other: asked together.
  const usage = keyUsageOver(ctx, request.since);
  usage.catch(() => undefined);
  const catalog = await loadCatalog(ctx, { refresh: request.refresh, offline: request.offline }, { whole: true });
  const repricing = await swapImpact(ctx, pairs, catalog.records ?? [], usage);
  await emit(ctx, {
    json: () => ({ pricing_version: catalog.pricingVersion ?? null, ...view.repricingJson(repricing) }),
    human: () => view.renderRepricing(repricing, ctx, { first: 'swap', before: 'at its prices', after: 'at the other' }),
  });
}
