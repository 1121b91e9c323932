// How an audit reads: per model over the window (charged, at the catalog's prices, the
// difference, the days off), then the calls the log shows departing, then the verdict and what
// tally cannot know. --json, --csv (a row per model and day) and --markdown carry the same.
import type { Context } from '../context.js';
import { Decimal, derivedText } from '../domain/money.js';
import { CHARGE_NOT_READ, departureShare } from '../domain/audit.js';
import { fixedZone, isoInZone } from '../domain/zone.js';
import { windowJson } from '../domain/window.js';
import type { AuditRow, CallFinding, LoadedAudit } from '../figures/audit.js';
import { escapeControl, escapeMarkdown } from './escape.js';
import { formatAmount } from './money.js';

const CURRENCY = 'CNY';
const ledger = derivedText;
const percent = (value: Decimal | null) => (value === null ? null : value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));

export const CANNOT_KNOW = "What tally cannot know: a price that changed inside the window (tally pricing --diff compares the catalog versions it kept), or a rule the catalog does not publish (a group's multiplier, a discount, a minimum charge). The balance's drop is not audited: the gateway states the balance now, not at the window's start.";

interface ModelSummary {
  model: string;
  /** null: some day's charge could not be read. */
  charged: Decimal | null;
  expected: Decimal | null;
  days: number;
  above: number;
  below: number;
  why?: string;
}

export function modelSummaries(rows: AuditRow[]): ModelSummary[] {
  const byModel = new Map<string, ModelSummary>();
  for (const row of rows) {
    const s = byModel.get(row.model) ?? { model: row.model, charged: new Decimal(0), expected: new Decimal(0), days: 0, above: 0, below: 0 };
    s.charged = s.charged === null || row.charged === null ? null : s.charged.plus(row.charged);
    if (row.expected.basis === 'unknown') {
      s.expected = null;
      s.why = row.expected.why;
    } else if (s.expected) s.expected = s.expected.plus(row.expected.amount);
    s.days++;
    if (row.verdict === 'above') s.above++;
    if (row.verdict === 'below') s.below++;
    byModel.set(row.model, s);
  }
  return [...byModel.values()].sort((a, b) => (b.charged ?? new Decimal(-1)).comparedTo(a.charged ?? new Decimal(-1)) || a.model.localeCompare(b.model));
}

/** Charged less expected, where both are known. */
function difference(charged: Decimal | null, expected: Decimal | null): Decimal | null {
  return charged === null || expected === null ? null : charged.minus(expected);
}
const known = (charged: Decimal | null) => (charged === null ? null : ledger(charged));

export function auditJson(audit: LoadedAudit) {
  const zone = fixedZone(audit.offset);
  const findings = audit.calls.findings;
  return {
    currency: CURRENCY,
    ...windowJson(audit.window, zone),
    scope: audit.scope ?? null,
    pricing_version: audit.pricingVersion ?? null,
    tolerance: { percent: audit.tolerance.percent.toFixed(), amount: audit.tolerance.amount.toFixed() },
    models: modelSummaries(audit.rows).map((s) => ({
      model: s.model,
      charged: known(s.charged),
      expected: s.expected === null ? null : ledger(s.expected),
      difference: known(difference(s.charged, s.expected)),
      difference_percent: s.expected === null || s.charged === null ? null : percent(departureShare(s.charged, s.expected)),
      days: s.days,
      days_above: s.above,
      days_below: s.below,
      ...(s.why ? { not_priced: s.why } : {}),
      ...(s.charged === null ? { not_read: CHARGE_NOT_READ } : {}),
    })),
    days: audit.rows.map((r) => ({
      day: r.day,
      day_iso: isoInZone(r.day, zone),
      model: r.model,
      charged: known(r.charged),
      expected: r.expected.basis === 'unknown' ? null : ledger(r.expected.amount),
      basis: r.expected.basis,
      difference: known(difference(r.charged, r.expected.basis === 'unknown' ? null : r.expected.amount)),
      difference_percent: r.expected.basis === 'unknown' || r.charged === null ? null : percent(departureShare(r.charged, r.expected.amount)),
      verdict: r.verdict,
      ...(r.expected.basis === 'unknown' ? { not_priced: r.expected.why } : {}),
      ...(r.charged === null ? { not_read: CHARGE_NOT_READ } : {}),
    })),
    calls: {
      read: audit.calls.read,
      complete: audit.calls.complete,
      priced: audit.calls.priced,
      ...(audit.calls.unread ? { not_audited: audit.calls.unread } : {}),
      findings: findings.map((f) => ({ kind: f.kind, at: f.at, at_iso: f.at === null ? null : isoInZone(f.at, zone), id: f.id, model: f.model, charged: ledger(f.charged), expected: f.expected === null ? null : ledger(f.expected) })),
    },
    unexplained: audit.unexplained,
    ok: audit.unexplained === 0,
    cannot_know: CANNOT_KNOW,
  };
}

export function auditCsv(audit: LoadedAudit) {
  const zone = fixedZone(audit.offset);
  return {
    header: ['day', 'model', 'charged', 'expected', 'basis', 'difference', 'difference_percent', 'verdict'],
    rows: audit.rows.map((r) => [
      isoInZone(r.day, zone).slice(0, 10),
      r.model,
      r.charged === null ? '' : ledger(r.charged),
      r.expected.basis === 'unknown' ? '' : ledger(r.expected.amount),
      r.expected.basis,
      r.expected.basis === 'unknown' || r.charged === null ? '' : ledger(r.charged.minus(r.expected.amount)),
      r.expected.basis === 'unknown' || r.charged === null ? '' : (percent(departureShare(r.charged, r.expected.amount)) ?? ''),
      r.verdict,
    ]),
  };
}

const money = (value: Decimal, exact = false) => formatAmount(value, 'per-call', { currency: CURRENCY, exact });
const signed = (value: Decimal) => `${value.gt(0) ? '+' : value.lt(0) ? '-' : ''}${money(value.abs())}`;

function findingText(f: CallFinding, zone: ReturnType<typeof fixedZone>): string {
  const when = f.at === null ? '' : `${isoInZone(f.at, zone).slice(0, 16).replace('T', ' ')} `;
  const what = `${when}${escapeControl(f.model)}${f.id === null ? '' : ` ${escapeControl(f.id).slice(0, 40)}`}`;
  switch (f.kind) {
    case 'failed_charged':
      return `${what}: the log marks it failed, and it was charged ${money(f.charged)}`;
    case 'not_charged':
      return `${what}: tokens and no charge (${money(f.expected!)} at the prices; in your favour)`;
    default:
      return `${what}: charged ${money(f.charged)}, ${money(f.expected!)} at the prices (${signed(f.charged.minus(f.expected!))})`;
  }
}

export function verdictText(audit: LoadedAudit): string {
  const count = audit.unexplained;
  return count === 0
    ? "Every charge is explained by the catalog's prices within the tolerance."
    : `${count} ${count === 1 ? 'charge is' : 'charges are'} not explained by the catalog's prices (above them, or a failed call charged): tally audit --fail exits 5 on that.`;
}

export async function renderAudit(audit: LoadedAudit, ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }] = await Promise.all([import('./table.js'), import('./style.js')]);
  const style = await styleFor(ctx);
  const zone = fixedZone(audit.offset);
  const { describeWindow } = await import('./window-text.js');
  const whose = audit.scope === 'key' ? "this key's charges" : audit.scope === 'account' ? "the account's charges" : 'the charges';
  const head = `Audit of ${whose}, ${describeWindow(audit.window, ctx.zone)}, against the catalog${audit.pricingVersion ? ` ${escapeControl(audit.pricingVersion)}` : ''} (a departure: more than ${audit.tolerance.percent.toFixed()}% and ${money(audit.tolerance.amount, true)} off)`;
  const rows = modelSummaries(audit.rows).map((s) => [
    escapeControl(s.model),
    s.charged === null ? 'not read' : money(s.charged),
    s.expected === null ? 'not priced' : money(s.expected),
    s.expected === null || s.charged === null ? '—' : s.charged.eq(s.expected) ? 'none' : `${signed(s.charged.minus(s.expected))}${departureShare(s.charged, s.expected) === null ? '' : ` (${percent(departureShare(s.charged, s.expected))}%)`}`,
    s.above + s.below === 0 ? (s.expected === null ? '—' : 'none') : [s.above && `${s.above} of ${s.days} above`, s.below && `${s.below} of ${s.days} below`].filter(Boolean).join(', '),
  ]);
  const table = await renderTable({ columns: [{ header: 'model' }, { header: 'charged', align: 'decimal' }, { header: 'at the prices', align: 'decimal' }, { header: 'difference' }, { header: 'days off' }], rows }, style);
  const c = audit.calls;
  const count = (kind: CallFinding['kind']) => c.findings.filter((f) => f.kind === kind).length;
  const callsHead = c.unread
    ? `Calls: not audited (${c.unread}).`
    : `Calls: ${c.read} in the log${c.complete ? '' : ' (not read to its end)'}, ${c.priced} set against the prices: ${count('above')} charged above them, ${count('failed_charged')} failed and charged, ${count('below')} below them, ${count('not_charged')} with tokens and no charge (in your favour).`;
  const listed = c.findings.filter((f) => f.kind === 'above' || f.kind === 'failed_charged').slice(0, 10).map((f) => `  ${findingText(f, zone)}`);
  const more = c.findings.filter((f) => f.kind === 'above' || f.kind === 'failed_charged').length - listed.length;
  return [head, '', table.trimEnd(), '', callsHead, ...listed, ...(more > 0 ? [`  and ${more} more (--json lists every one)`] : []), '', verdictText(audit), style.paint.dim(CANNOT_KNOW), ''].join('\n');
}

export function auditMarkdown(audit: LoadedAudit): string {
  // Model names are the gateway's text: escaped as Markdown data (links, HTML, mentions), the one rule every Markdown writer uses.
  const cell = escapeMarkdown;
  const rows = modelSummaries(audit.rows).map((s) => `| ${cell(s.model)} | ${s.charged === null ? 'not read' : money(s.charged)} | ${s.expected === null ? 'not priced' : money(s.expected)} | ${s.expected === null || s.charged === null ? '—' : signed(s.charged.minus(s.expected))} | ${s.above} | ${s.below} |`);
  const c = audit.calls;
  const calls = c.unread ? `Calls: not audited (${c.unread}).` : `Calls: ${c.priced} of ${c.read} set against the prices; ${c.findings.filter((f) => f.kind === 'above').length} above, ${c.findings.filter((f) => f.kind === 'failed_charged').length} failed and charged.`;
  return `### tally audit\n\n${audit.unexplained === 0 ? '✅' : '❌'} ${verdictText(audit)}\n\n| model | charged | at the prices | difference | days above | days below |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n\n${calls}\n\n_${CANNOT_KNOW}_\n`;
}
