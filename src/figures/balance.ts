// The balance and plan, and the key's daily counter: one figure of the computation (status, the
// forecast, a report, check's gates, metrics ask it; the gateway answers once). A command that
// polls (run, guard) asks the endpoint itself, each poll.
import type { Context } from '../context.js';
import { type Balance, fetchBalance } from '../api/balance.js';

export function balanceOf(ctx: Context): Promise<Balance> {
  return ctx.figure('balance', async () => fetchBalance(await ctx.client()));
}
