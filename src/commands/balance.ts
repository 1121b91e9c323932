// tally balance: account balance, lifetime spend, plan state and the key's daily limit.
import type { Context } from '../context.js';
import { balanceOf } from '../figures/balance.js';
import type { CommandLine } from '../cli/command.js';
import { WATCH_FLAGS, watchFlag, watchOrRun } from '../loops/watch.js';
import type { FlagValues } from '../flags/declare.js';
import { keyQuotaJson, keyQuotaOf } from '../figures/key-quota.js';
import { allowanceOf } from '../figures/key-allowance.js';
import { renderBalance } from '../output/balance.js';

export { balanceFleetRow as fleetRow } from '../output/balance.js';

export const flags = WATCH_FLAGS;

/** What `tally balance` was asked: once, or every `watch` seconds. */
export interface BalanceRequest {
  watch: number | undefined;
}

export function parse(flags: FlagValues<typeof WATCH_FLAGS>, line: CommandLine): BalanceRequest {
  return { watch: watchFlag(flags.watch, line.output) };
}

export async function run(request: BalanceRequest, ctx: Context): Promise<void> {
  await watchOrRun(ctx, request.watch, 'tally balance', async () => {
    // The key's own quota beside the balance (never fatal): as every view has it, remembered for
    // five minutes, since real gateways allow its token record about 20 requests in 20 minutes (a
    // prompt or a cron job running `tally balance` would use them up, and the gates with them).
    const [balance, quota] = await Promise.all([balanceOf(ctx), keyQuotaOf(ctx)]);
    const keyQuota = keyQuotaJson(quota);
    if (quota.state === 'unknown') ctx.debug(quota.reason);
    return { json: keyQuota ? { ...balance.raw, key_quota: keyQuota } : balance.raw, human: () => renderBalance(balance, allowanceOf(balance, quota), ctx) };
  });
}

