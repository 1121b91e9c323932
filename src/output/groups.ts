// The groups of profiles, and spend per group (`tally usage --by group`): a row a group, the
// unattributed profiles' row, and the total (each account once), in yuan.
import type { Context } from '../context.js';
import type { GroupUsage } from '../figures/group-usage.js';

export async function renderGroups(groups: Record<string, string[]>, inNone: string[], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('./table.js'), import('./style.js')]);
  const rows = Object.keys(groups).sort().map((name) => [name, groups[name]!.join(', ')]);
  if (inNone.length) rows.push(['(unattributed)', inNone.join(', ')]);
  if (rows.length === 0) return 'no group is stored: `tally group set platform --profiles prod,staging` makes one\n';
  return renderTable({ columns: [{ header: 'group' }, { header: 'profiles' }], rows }, await styleFor(ctx));
}

export async function renderGroupUsage(usage: GroupUsage, ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }, { formatAmount }] = await Promise.all([import('./table.js'), import('./style.js'), import('./money.js')]);
  const amount = (v: import('../domain/money.js').Decimal) => formatAmount(v, 'account', { currency: usage.currency, exact: ctx.options.exact });
  const rows = usage.rows.map((r) => [r.group, r.profiles.join(', ') || '—', amount(r.spend)]);
  rows.push(['total', '', amount(usage.total)]);
  const table = await renderTable({ columns: [{ header: 'group' }, { header: 'profiles', dropOrder: 0 }, { header: 'spend', align: 'right' }], rows }, await styleFor(ctx));
  const notes = [
    'each account (or key) counted once; profiles in no group are "unattributed", so the groups add up to the total',
    ...usage.shared.map((s) => `one account's profiles sit in ${s.groups.join(' and ')}: its spend is counted in ${s.groups[0]} only`),
    ...usage.failed.map((f) => `profile "${f.profile}" could not be read (${f.message}): in no row`),
  ];
  return `${table}${notes.map((n) => `${n}\n`).join('')}`;
}
