// tally balance: account balance, lifetime spend, plan state and the key's daily limit.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchBalance, type Balance } from '../api/balance.js';
import { emit } from '../output/emit.js';
import { stringifyJson } from '../domain/json.js';
import { shareOf } from '../domain/decimal-text.js';

export function configure(command: Command): void {
  command.description('account balance, plan state and the key\'s daily limit');
}

export async function run(_options: Record<string, unknown>, ctx: Context): Promise<void> {
  const balance = await fetchBalance(await ctx.client());
  await emit(ctx, { json: balance.raw, human: () => renderBalance(balance, ctx) });
}

async function renderBalance(balance: Balance, ctx: Context): Promise<string> {
  const [{ renderPanel, bar }, { yuan, percent }, { styleFor }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
  ]);
  const style = await styleFor(ctx);
  const money = (amount: Parameters<typeof yuan>[0]) => yuan(amount, balance.currency);
  const rows: [string, string, boolean?][] = [
    ['Balance', money(balance.balance)],
    ['Lifetime spend', money(balance.lifetimeSpend)],
    ['Plan', balance.hasActivePlan ? 'active' : 'no active plan (billing from balance)'],
  ];
  for (const [field, value] of Object.entries(balance.plan)) {
    if (field !== 'has_active_plan') rows.push([`  ${field}`, typeof value === 'string' ? value : stringifyJson(value)]);
  }
  const key = balance.apiKey;
  if (key === null) {
    rows.push(['Key', 'signed in with a device token, no key-level limit']);
  } else {
    rows.push(['Key', [key.name, key.prefix && `(${key.prefix}…)`].filter(Boolean).join(' ') || 'unnamed key']);
    if (key.dailyLimit === undefined) {
      rows.push(['Daily limit', 'none set']);
      if (key.dailyUsed !== undefined) rows.push(['Used today', money(key.dailyUsed)]);
    } else {
      const used = key.dailyUsed;
      rows.push(['Daily limit', money(key.dailyLimit)]);
      if (used !== undefined) {
        const share = shareOf(used, key.dailyLimit);
        rows.push(['Used today', `${money(used)}  ${bar(share, 20, style)}  ${percent(used, key.dailyLimit)}`, true]);
        const remaining = key.dailyLimit.minus(used);
        rows.push(['Remaining today', money(remaining.isNegative() ? remaining.mul(0) : remaining)]);
      }
    }
  }
  rows.push(['Currency', balance.currency]);
  return renderPanel(rows, style);
}
