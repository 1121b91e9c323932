// tally billing: the figures third-party tools read from the compatible endpoints, in yuan.
// Each record is shown as far as it was read; what could not be read is named.
import { type FlagValues, declareFlags } from '../flags/declare.js';
import type { Context } from '../context.js';
import { fetchCompatibleBilling } from '../api/billing.js';
import { fetchBalance } from '../api/balance.js';
import { emit } from '../output/emit.js';
import { errorText } from '../output/error-text.js';
import { compare } from '../figures/billing.js';
import { billingJson, renderBilling } from '../output/billing.js';

export { billingFleetRow as fleetRow } from '../output/billing.js';

export const flags = declareFlags({
  compare: { kind: 'switch', help: 'set the figures beside the native balance and flag a mismatch' },
});

/** What `tally billing` was asked: the figures, and with `compare` the native balance beside them. */
export interface BillingRequest {
  compare: boolean;
}

export function parse(given: FlagValues<typeof flags>): BillingRequest {
  return { compare: given.compare === true };
}

export async function run(request: BillingRequest, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const [billing, balance] = await Promise.all([
    fetchCompatibleBilling(client),
    request.compare ? fetchBalance(client) : Promise.resolve(undefined),
  ]);
  const comparison = balance ? compare(billing, balance) : undefined;
  for (const { path, error } of billing.missing) ctx.warn(`${path} was not read: ${errorText(error, ctx.secrets).message}`);
  await emit(ctx, {
    json: billingJson(billing, ctx.secrets, comparison),
    human: () => renderBilling(billing, comparison, ctx),
  });
}

