// How a budget reads: its terms in a phrase, and one line of where it stands with a pace bar.
import type { Context } from '../context.js';
import { isoInZone, parseZone } from '../domain/zone.js';
import { type StoredBudget, type BudgetStanding, budgetScope, setInWords } from '../domain/budget.js';
import { escapeControl } from './escape.js';
import { Decimal, oneDecimal } from '../domain/money.js';
import type { LoadedBudgets } from '../figures/budgets.js';
import { amountInCurrency } from '../domain/display-currency.js';
import type { Drawn } from './table.js';
import { formatAmount } from './money.js';
import type { budgetJson } from '../figures/budgets.js';
import type { Parsed } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

/** `¥500.00 a month from the 1st, Asia/Shanghai, of the whole account's spend (every key)` */
export function describeBudget(b: StoredBudget): string {
  const from = b.period === 'day' ? 'a day' : b.period === 'week' ? `a week from ${String(b.starts)}` : `a month from day ${String(b.starts)}`;
  return `${amountAsSet(b)} ${from}, in ${b.zone}, of ${budgetWhose(b)}`;
}

/** A budget's amount as it was set: yuan, or the currency it was set in (`US$100.00`). */
function amountAsSet(b: StoredBudget): string {
  return b.currency ? amountInCurrency(b.amount, b.currency) : formatAmount(b.amount, 'account');
}

/** Whose spend a budget counts, in the words every view uses: `the whole account's spend (every key)`, `this key's spend of claude-opus*`. */
export function budgetWhose(b: StoredBudget): string {
  if (b.group) return `the spend of group "${escapeControl(b.group)}" (each of its accounts once)`;
  const whose = budgetScope(b) === 'key' ? "this key's spend" : "the whole account's spend (every key)";
  return b.models ? `${whose} of ${b.models.map(escapeControl).join(', ')}` : whose;
}

/**
 * One line a budget: spent of the amount, a bar with the period's elapsed share marked, and the
 * verdict in its colour. The line is drawn (its colour is tally's own, and nothing in it comes
 * from data unchecked: names are validated, amounts formatted), so every panel shows it as drawn.
 */
export async function budgetLines(loaded: LoadedBudgets, ctx: Context): Promise<[string, Drawn][]> {
  const [{ formatAmount, formatShare }, { styleFor }, { drawn }] = await Promise.all([import('./money.js'), import('./style.js'), import('./table.js')]);
  const style = await styleFor(ctx);
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency: loaded.currency, exact: ctx.options.exact });
  return loaded.budgets.map(({ name, budget, standing: s, notMeasured }) => {
    if (!s) return [name, drawn(`${budget.currency ? amountAsSet(budget) : amount(new Decimal(budget.amount))} of ${budgetWhose(budget)}: ${style.paint.yellow('not measured')}, ${escapeControl(notMeasured ?? '')}`)];
    const colour = s.state === 'over' ? style.paint.red : s.state === 'ahead of pace' ? style.paint.yellow : style.paint.green;
    const unit = budget.period === 'day' ? 'the day' : budget.period === 'week' ? 'the week' : 'the month';
    const text =
      `${amount(s.spent)} of ${amount(s.amount)} (${budget.group ? `group ${escapeControl(budget.group)}` : budgetScope(budget) === 'key' ? 'this key' : 'the account'}${budget.models ? `, ${budget.models.map(escapeControl).join(', ')}` : ''})  ${paceBar(s, style.unicode)}  ${formatShare(s.spent.toFixed(), s.amount.toFixed())} spent, ` +
      `${oneDecimal(s.elapsedPercent)}% of ${unit} gone · ${amount(s.projected)} projected · resets in ${oneDecimal(s.resetsInDays)} days: ${colour(s.state)}`;
    return [name, drawn(text)];
  });
}

/** 20 cells: the share spent filled, the share of the period gone marked with │ (| on a pipe). */
function paceBar(s: BudgetStanding, unicode: boolean): string {
  const cells = 20;
  const filled = Math.min(cells, Math.round(Math.min(1, s.percent.div(100).toNumber()) * cells));
  const mark = Math.min(cells - 1, Math.floor(s.elapsedPercent.div(100).toNumber() * cells));
  const [full, empty, marker] = unicode ? ['█', '░', '│'] : ['#', '.', '|'];
  return Array.from({ length: cells }, (_, i) => (i === mark ? marker : i < filled ? full : empty)).join('');
}

/** `budget list`: the stored budgets, a row each. */
export async function renderBudgetList(budgets: [string, StoredBudget][], ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('./table.js'), import('./style.js')]);
  const rows = budgets.map(([name, b]) => [name, amountAsSet(b), b.period, b.starts === undefined ? '—' : String(b.starts), b.zone, b.group ? `group ${escapeControl(b.group)}` : budgetScope(b) === 'key' ? 'this key' : 'the whole account (every key)', b.models?.map(escapeControl).join(', ') ?? 'every model']);
  return renderTable({ columns: [{ header: 'budget' }, { header: 'amount', align: 'decimal' }, { header: 'period' }, { header: 'starts' }, { header: 'zone' }, { header: 'counts the spend of' }, { header: 'models' }], rows }, await styleFor(ctx));
}

/** `budget [NAME...]`: where each budget stands, its period and how the projection is made. */
export async function renderBudgets(loaded: LoadedBudgets, ctx: Context): Promise<string> {
  const [{ renderPanel }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const rows = await budgetLines(loaded, ctx);
  const resets = loaded.budgets.map(({ name, budget, period, setIn }) => {
    const zone = parseZone(budget.zone)!;
    return `${name}: ${describeBudget(budget)}${setIn?.rate ? ` (${setInWords(setIn)})` : ''}, this period ${isoInZone(period.start, zone).slice(0, 16)} → ${isoInZone(period.end, zone).slice(0, 16)}`;
  });
  const note = [...resets, 'projected = spent + the average daily spend of the same spend over the last 7 complete days × the days left'].join('\n');
  return `${await renderPanel(rows, style)}${style.paint.dim(await fitLines(note, style.width))}\n`;
}

/** The budgets' row in the fleet's table: each budget, whose spend it counts, and where it stands. */
export const budgetFleetRow: FleetRow<Parsed<ReturnType<typeof budgetJson>>> = {
  columns: [
    { header: 'budgets', value: (r) => r.budgets.map((b) => `${b.name} (${b.scope === 'key' ? 'this key' : 'the account'}${b.models ? `, ${b.models.join(', ')}` : ''}) ${b.percent === null ? 'not measured' : `${b.percent}% ${b.state}`}`).join(' · ') || 'none stored' },
  ],
  currency: (r) => r.budgets[0]?.currency,
};
