// How findings read: one sentence each with its evidence, the JSON document, and a list that
// fits the terminal.
import type { Context } from '../context.js';
import { Decimal, derivedText } from '../domain/money.js';
import { scopeText } from '../domain/records.js';
import { type Zone, dateText, isoInZone, wallClock } from '../domain/zone.js';
import type { Anomalies, Finding } from '../figures/anomalies.js';
import { formatAmount, groupDigits } from './money.js';
import { describeWindow, windowJson } from './window-text.js';

/** A ratio with one decimal: `4.7×`. */
function times(ratio: Decimal): string {
  return `${ratio.toDecimalPlaces(1, Decimal.ROUND_HALF_UP).toFixed(1)}×`;
}

/** When a finding happened, in the zone of the labels: the day, or the day and hour. */
export function findingWhen(f: Finding, zone: Zone, bucket: 'day' | 'hour'): string {
  const iso = isoInZone(f.start, zone);
  return f.kind === 'spike' && bucket === 'hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : dateText(wallClock(f.start, zone));
}

/** One sentence, with the evidence. */
export function findingMessage(f: Finding, a: Pick<Anomalies, 'rule' | 'labelZone'>, exact = false): string {
  const amount = (value: Decimal) => formatAmount(value, 'account', { exact });
  const unit = a.rule.bucket;
  switch (f.kind) {
    case 'spike':
      return `${unit === 'hour' ? 'an hour' : 'a day'} of ${amount(f.amount)}${f.running ? ' so far' : ''}, ${f.ratio ? `${times(f.ratio)} ` : ''}the median ${amount(f.baseline!)} of ${baselineWords(a.rule)}${f.models ? `; ${f.models.map((m) => `${m.model} ${amount(m.amount)}`).join(', ')} of it` : ''}`;
    case 'new_model':
      return `${f.model} first cost money that day: ${amount(f.amount)} in the window, nothing in the period before it`;
    case 'stopped_model':
      return `${f.model} last cost money that day: ${amount(f.baseline!)} in the period before the window, nothing since`;
    case 'zero_cost':
      return `${f.model} counted ${groupDigits(f.tokens ?? '0')} tokens at no cost in the window, from that day on`;
    case 'growth':
      return `spend rose ${a.rule.growthPeriods} periods in a row (${f.periods!.map(amount).join(' → ')}), each by ${f.smallestStep!.toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed()}% or more`;
  }
}

/** What a spike is set against: `the 14 days before`, `the same hour of the 7 days before`. */
export function baselineWords(rule: Pick<Anomalies['rule'], 'bucket' | 'baseline'>): string {
  return rule.bucket === 'hour' ? `the same hour of the ${rule.baseline} days before` : `the ${rule.baseline} days before`;
}

/** The anomalies document (schemas/anomalies.schema.json). */
export function anomaliesJson(a: Anomalies) {
  return {
    window: windowJson(a.window, a.labelZone),
    bucket: a.rule.bucket,
    rule: { baseline: a.rule.baseline, deviations: a.rule.deviations, min_ratio: a.rule.minRatio, min_amount: a.rule.minAmount.toFixed(), growth_periods: a.rule.growthPeriods, growth_step_percent: a.rule.growthStep.toFixed() },
    currency: 'CNY',
    scope: { series: a.seriesScope ?? null, models: a.modelsScope ?? null },
    findings: a.findings.map((f) => ({
      kind: f.kind,
      start: f.start,
      start_iso: isoInZone(f.start, a.labelZone),
      end: f.end,
      ...(f.model === undefined ? {} : { model: f.model }),
      amount: f.amount.toFixed(),
      baseline: f.baseline === null ? null : derivedText(f.baseline),
      ratio: f.ratio === null ? null : f.ratio.toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed(),
      ...(f.tokens === undefined ? {} : { tokens: f.tokens }),
      ...(f.running ? { complete: false } : {}),
      ...(f.models ? { models: f.models.map((m) => ({ model: m.model, amount: m.amount.toFixed() })) } : {}),
      message: findingMessage(f, a),
    })),
  };
}

export async function renderAnomalies(a: Anomalies, ctx: Context): Promise<string> {
  const [{ renderTable }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const notes = [describeWindow(a.window, a.labelZone), `models set against ${describeWindow(a.previous, a.labelZone)}`];
  const series = scopeText(a.seriesScope);
  if (series) notes.push(`the ${a.rule.bucket} series: ${series}`);
  const models = scopeText(a.modelsScope);
  if (models) notes.push(`models: ${models}`);
  notes.push(`a spike: ${a.rule.deviations} deviations and ${a.rule.minRatio}× above the median of ${baselineWords(a.rule)}, at least ${formatAmount(a.rule.minAmount, 'account')} (--deviations, --min-ratio, --baseline, --min-amount)`);
  if (a.findings.length === 0) return `nothing unusual found\n${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
  const rows = a.findings.map((f) => [f.kind.replace('_', ' '), findingWhen(f, a.labelZone, a.rule.bucket), findingMessage(f, a, ctx.options.exact)]);
  const table = await renderTable({ columns: [{ header: 'finding' }, { header: 'when' }, { header: 'evidence' }], rows }, style);
  return `${table}${style.paint.dim(await fitLines(notes.join('\n'), style.width))}\n`;
}
