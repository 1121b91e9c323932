// How the ledger reads on a terminal: a table of day (or hour) x model x profile rows, totals, and the windows it covers.
import type { Context } from '../context.js';
import type { Ledger, LedgerRow } from '../figures/ledger.js';

export async function renderLedger(rows: LedgerRow[], ledgers: Ledger[], ctx: Context, grouped = false): Promise<string> {
  const [{ renderTable }, { formatAmount, formatCount }, { styleFor }, { fitLines }, { describeWindow }, { fixedZone }, { Decimal }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
    import('../output/wrap.js'),
    import('../output/window-text.js'),
    import('../domain/zone.js'),
    import('../domain/money.js'),
  ]);
  const style = await styleFor(ctx);
  const fleet = new Set(rows.map((r) => r.profile)).size > 1 || grouped;
  const group = grouped ? [{ header: 'group' }] : [];
  const count = (text: string) => (text === '' ? '' : formatCount(text));
  const table = await renderTable(
    {
      columns: [{ header: 'date' }, ...(fleet ? [{ header: 'profile' }] : []), ...group, { header: 'model' }, { header: 'calls', align: 'decimal' as const, dropOrder: 3 }, { header: 'input tokens', align: 'decimal' as const, dropOrder: 2 }, { header: 'output tokens', align: 'decimal' as const, dropOrder: 1 }, { header: 'amount (¥)', align: 'decimal' as const }],
      rows: rows.map((r) => [r.complete ? r.date : `${r.date} (part)`, ...(fleet ? [r.profile] : []), ...(grouped ? [r.group ?? ''] : []), r.model, count(r.calls), count(r.input_tokens), count(r.output_tokens), formatAmount(r.amount, 'account', { exact: ctx.options.exact })]),
      footer: ['total', ...(fleet ? [''] : []), ...group.map(() => ''), '', '', '', '', formatAmount(rows.reduce((a, r) => a.plus(r.amount), new Decimal(0)), 'account', { exact: ctx.options.exact })],
    },
    style,
  );
  const notes = ledgers.map((l) => describeWindow(l.window, fixedZone(l.dayOffset)));
  notes.push('--csv or --ndjson for the ledger itself (every amount exact)');
  return `${table}${style.paint.dim(await fitLines([...new Set(notes)].join('\n'), style.width))}\n`;
}

/** Whose spend the rows are, for stderr (the CSV stays clean): a key's ledger is not the account's, and says how much of it it is. */
export async function scopeNotes(ledger: Ledger, profile: string | undefined): Promise<string[]> {
  if (ledger.scope !== 'key') return [];
  const these = profile === undefined ? 'these rows are' : `profile "${profile}": its rows are`;
  const way = profile === undefined ? ' (--all-profiles exports every stored key)' : '';
  if (ledger.accountSpend === undefined) return [`${these} this key's spend, not the whole account's${way}`];
  const { shareNote } = await import('./usage-by-model.js');
  return (await shareNote({ key: ledger.spend, account: ledger.accountSpend })).map((line) => `${these} ${line.replace(/^this key: /, "this key's spend: ")}; the rest is other keys'${way}`);
}
