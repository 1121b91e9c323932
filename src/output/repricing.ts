// How a repricing reads: per model, the key's usage at the first and at the second prices, the
// change, how it was computed (tokens, scaled by the price ratio, or not at all), and the total.
import type { Context } from '../context.js';
import { Decimal, derivedText } from '../domain/money.js';
import { scopeText } from '../domain/records.js';
import { fixedZone } from '../domain/zone.js';
import type { Repricing } from '../figures/repricing.js';
import { percentCell, percentText, signed as signedAmount } from './comparison.js';
import { describeWindow, windowJson } from './window-text.js';

const ledger = (value: Decimal | null | undefined) => (value === null || value === undefined ? null : derivedText(value));

const BASIS_WORDS = { tokens: 'from its tokens', scaled: 'its amount scaled by the price ratio (no tokens per model)', unknown: 'cannot be computed: no tokens per model, and its prices did not change by one ratio' };

/** The impact document: under `impact` in `pricing --diff --json`, the whole of `whatif --json`. */
export function repricingJson(r: Repricing) {
  return {
    window: windowJson(r.window, fixedZone(r.dayOffset)),
    currency: 'CNY',
    scope: r.scope ?? null,
    rows: r.rows.map((row) => ({
      model: row.model,
      ...(row.other ? { other: row.other } : {}),
      basis: row.basis,
      spent: ledger(row.spent),
      before: ledger(row.before),
      after: ledger(row.after),
      change: ledger(row.change),
      change_percent: percentText(row.changePercent),
      ...(row.notes ? { notes: row.notes } : {}),
      ...(row.why ? { why: row.why } : {}),
    })),
    unused: r.unused,
    // The total is of the rows whose impact is known; these are not in it.
    not_computable: r.rows.filter((row) => row.basis === 'unknown').map((row) => row.model),
    total: { before: ledger(r.total.before), after: ledger(r.total.after), change: ledger(r.total.change), change_percent: percentText(r.total.changePercent) },
    ...(r.incomplete ? { incomplete: true } : {}),
  };
}

/** The table and its notes; `labels` name the two prices (`old`/`new`, or `now`/`at OTHER`). */
export async function renderRepricing(r: Repricing, ctx: Context, labels: { before: string; after: string; first: string }): Promise<string> {
  const [{ renderTable }, { formatAmount }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./money.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const amount = (value: Decimal | null) => (value === null ? '—' : formatAmount(value, 'account', { exact: ctx.options.exact }));
  const signed = (value: Decimal | null) => (value === null ? '—' : signedAmount(value, amount));
  const percent = percentCell;
  const notes = [`the key's usage over ${describeWindow(r.window, fixedZone(r.dayOffset))}`];
  const whose = scopeText(r.scope);
  if (whose) notes.push(whose);
  for (const row of r.rows) {
    if (row.basis !== 'tokens') notes.push(`${row.model}: ${row.basis === 'unknown' && row.why ? `cannot be computed: ${row.why}` : BASIS_WORDS[row.basis]}`);
    for (const note of row.notes ?? []) notes.push(`${row.other} for ${row.model}: ${note}`);
  }
  if (r.unused.length) notes.push(`not used in the window (nothing to price): ${r.unused.join(', ')}`);
  if (r.incomplete) notes.push('the usage had more records than tally fetched: its figures are partial');
  if (r.rows.length === 0) return `${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
  const rows = r.rows.map((row) => [row.other ? `${row.model} → ${row.other}` : row.model, amount(row.before), amount(row.after), signed(row.change), percent(row)]);
  const unknown = r.rows.filter((row) => row.basis === 'unknown').length;
  // A total is never ¥0.00 for what could not be computed: it says what it covers, or is not given.
  const footer = unknown === r.rows.length ? ['total', '—', '—', '—', '—'] : [unknown ? `total (without ${unknown} not computable)` : 'total', amount(r.total.before), amount(r.total.after), signed(r.total.change), percent(r.total)];
  const table = await renderTable(
    {
      columns: [{ header: labels.first }, { header: `${labels.before} (¥)`, align: 'decimal' }, { header: `${labels.after} (¥)`, align: 'decimal' }, { header: 'change (¥)', align: 'decimal' }, { header: 'change', align: 'right', dropOrder: 1 }],
      rows,
      footer,
    },
    style,
  );
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}
