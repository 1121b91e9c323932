// The digest of a period as people read it: the JSON document (schemas/report.schema.json), the
// terminal (80 columns), and GitHub-flavoured Markdown for a pull request, a step summary or chat.
// The HTML page is in report-html.ts; all three are built from the same facts (reportFacts).
import { amountInCurrency } from '../domain/display-currency.js';
import type { Context } from '../context.js';
import { Decimal } from '../domain/money.js';
import { scopeText } from '../domain/records.js';
import { dateText, fixedZone, isoInZone, parseZone, wallClock } from '../domain/zone.js';
import { budgetJson } from '../figures/budgets.js';
import { forecastJson } from '../figures/forecast.js';
import type { Report } from '../figures/report.js';
import type { FleetReports } from '../figures/report-fleet.js';
import { anomaliesJson, findingMessage, findingWhen } from './anomalies.js';
import { budgetWhose } from './budgets.js';
import { comparisonRowJson, percentCell, signed as signedAmount } from './comparison.js';
import { escapeMarkdown } from './escape.js';
import { notReadWhy } from './key-quota.js';
import { formatAmount, formatShare, partsOnThePage } from './money.js';
import { groupDigits } from '../domain/decimal-text.js';
import { windowJson } from './window-text.js';
import { tokenClassesJson } from '../figures/token-classes.js';
import { classNotes } from './usage-by-model.js';

/** A window's days as a person reads them, both included: `2026-11-16 \u2013 2026-11-22` (JSON keeps start and end half-open). */
export function inclusiveDays(window: { start: number; end: number }, zone: ReturnType<typeof fixedZone>): string {
  const first = dateText(wallClock(window.start, zone));
  const last = dateText(wallClock(window.end - 1, zone));
  return first === last ? first : `${first} \u2013 ${last}`;
}

/** `week 2026-11-09 \u2013 2026-11-15`, `month 2026-10`, `period 2026-10-01 \u2013 2026-10-14`; `(so far)` while it runs. */
export function periodLabel(r: Report): string {
  const zone = fixedZone(r.grid.offset);
  const label = r.kind === 'month' ? `month ${dateText(wallClock(r.window.start, zone)).slice(0, 7)}` : `${r.kind === 'week' ? 'week' : 'period'} ${inclusiveDays(r.window, zone)}`;
  return r.complete ? label : `${label} (so far)`;
}

const rowJson = comparisonRowJson;

export function reportJson(r: Report, profile: string) {
  const zone = fixedZone(r.grid.offset);
  const forecast = forecastJson(r.forecast);
  return {
    profile,
    period: { kind: r.kind, label: periodLabel(r), title: periodLabel(r), complete: r.complete, ...windowJson(r.window, zone), previous: windowJson(r.previous, zone) },
    currency: forecast.currency,
    now: { balance: forecast.balance, runway_days: forecast.runway_days, runs_out_on: forecast.runs_out_on, runway_basis: forecast.runway_basis, average_daily_spend: forecast.average_daily_spend, key_quota: forecast.key_quota },
    spend: { ...rowJson(r.spend), scope: r.spendScope ?? null },
    models: r.models.map(rowJson),
    models_total: rowJson(r.modelsTotal),
    ...(r.otherKeys ? { other_keys: rowJson(r.otherKeys) } : {}),
    models_scope: r.modelsScope ?? null,
    daily: r.daily.map((d) => ({ date: dateText(wallClock(d.start, zone)), start: d.start, amount: d.amount.toFixed(), ...(d.complete ? {} : { complete: false }) })),
    budgets: r.budgets ? budgetJson(r.budgets).budgets : [],
    anomalies: anomaliesJson(r.anomalies).findings,
    ...(r.tokenClasses ? { token_classes: tokenClassesJson(r.tokenClasses) } : {}),
    ...(r.incomplete ? { incomplete: true } : {}),
  };
}

/** The facts every format shows, as text: one place decides how each reads. */
export function reportFacts(r: Report, exact = false) {
  const zone = fixedZone(r.grid.offset);
  const currency = r.forecast.balance.currency;
  const amount = (value: Decimal) => formatAmount(value, 'account', { currency, exact });
  const signed = (value: Decimal) => signedAmount(value, amount);
  const percent = percentCell;
  const f = r.forecast.forecast;
  const runway = f.runwayDays === null ? 'not being used up' : `${groupDigits(f.runwayDays.toFixed())} days${f.runsOutOn === null ? '' : ` (to ${dateText(wallClock(f.runsOutOn, zone))})`}`;
  const quota = r.forecast.allowance.quota.state === 'quota' ? r.forecast.allowance.quota.quota : undefined;
  return {
    label: periodLabel(r),
    range: `${inclusiveDays(r.window, zone)} (days of UTC${isoInZone(r.window.start, zone).slice(19)})`,
    previousRange: inclusiveDays(r.previous, zone),
    amount,
    signed,
    percent,
    balance: amount(r.forecast.balance.balance),
    runway,
    quota: quota ? `${formatAmount(quota.remaining, 'account', { currency: quota.currency ?? 'units', exact })} left of the key's own quota` : r.forecast.allowance.quota.state === 'unknown' ? `not read (${notReadWhy(r.forecast.allowance.quota)})` : undefined,
    spend: `${amount(r.spend.current)} (previous ${amount(r.spend.previous)}, ${signed(r.spend.change)}, ${percent(r.spend)})`,
    spendScope: scopeText(r.spendScope),
    modelsScope: scopeText(r.modelsScope),
    days: r.daily.map((d) => ({ date: dateText(wallClock(d.start, zone)), amount: d.amount, complete: d.complete })),
    runwayDays: f.runwayDays === null ? 'not being used up' : `${groupDigits(f.runwayDays.toFixed())} days`,
    runwayTo: f.runwayDays === null || f.runsOutOn === null ? undefined : `to ${dateText(wallClock(f.runsOutOn, zone))}`,
    budgets: (r.budgets?.budgets ?? []).map((b) => {
      const when = r.complete ? ` (as it stood at the period's end, ${b.budget.period} from ${dateText(wallClock(b.period.start, parseZone(b.budget.zone) ?? zone))})` : ' (so far)';
      const whose = budgetWhose(b.budget);
      if (!b.standing) return { name: b.name, text: `${b.budget.currency ? amountInCurrency(b.budget.amount, b.budget.currency) : amount(new Decimal(b.budget.amount))} of ${whose}: not measured, ${b.notMeasured}${when}`, state: 'not measured' };
      return { name: b.name, text: `${amount(b.standing.spent)} of ${amount(b.standing.amount)} of ${whose}, ${b.standing.state}${when}`, state: b.standing.state };
    }),
    findings: r.anomalies.findings.map((finding) => ({ kind: finding.kind.replace('_', ' '), when: findingWhen(finding, r.anomalies.labelZone, r.anomalies.rule.bucket), text: findingMessage(finding, r.anomalies, exact) })),
    // The parts add up on the page: the other keys are what is left between the shown whole and the shown key.
    reconcile: r.otherKeys ? ((p) => `this key ${amount(p.part)} + other keys ${amount(p.rest)} = the account's ${amount(p.whole)} (the spend above); this key is ${formatShare(r.modelsTotal.current.toFixed(), r.spend.current.toFixed())} of it`)(partsOnThePage(r.spend.current, r.modelsTotal.current, 'account', exact)) : undefined,
    // What the prompt cache saved, where the gateway reports cache reads (the same words as usage --by model).
    cache: r.tokenClasses && r.tokenClasses.total.tokens.cache_read !== null ? classNotes(r.tokenClasses).at(-1) : undefined,
    top: r.models.filter((m) => !m.current.isZero()).sort((a, b) => b.current.comparedTo(a.current)).slice(0, 5),
    // The other keys' row of a models table, so that this key + other keys = the account in each column on the page.
    otherKeys: r.otherKeys ? otherKeysShown(r, exact) : undefined,
  };
}

/** The other keys' previous, current and change, as shown: what is left between the shown account and the shown key. */
function otherKeysShown(r: Report, exact: boolean): { previous: Decimal; current: Decimal; change: Decimal } {
  const previous = partsOnThePage(r.spend.previous, r.modelsTotal.previous, 'account', exact).rest;
  const current = partsOnThePage(r.spend.current, r.modelsTotal.current, 'account', exact).rest;
  return { previous, current, change: current.minus(previous) };
}

/** ▁▂▃▄▅▆▇█ per day, scaled to the largest (a shape; the amounts beside it are exact). */
export function sparkline(values: Decimal[]): string {
  const blocks = '▁▂▃▄▅▆▇█';
  const largest = values.reduce((m, v) => Decimal.max(m, v), new Decimal(0));
  return values.map((v) => (largest.isZero() ? blocks[0] : blocks[Math.min(7, v.div(largest).mul(7.999).floor().toNumber())])).join('');
}

export function reportMarkdown(r: Report, profile: string, exact = false): string {
  const x = reportFacts(r, exact);
  const cell = escapeMarkdown;
  const lines = [`## tally report: ${cell(x.label)}`, '', `${cell(x.range)}, profile ${cell(profile)}`, ''];
  lines.push(`**Spend** ${cell(x.spend)}  `, `**Balance now** ${cell(x.balance)} · **Runway now** ${cell(x.runway)}${x.quota ? ` · ${cell(x.quota)}` : ''}`, '');
  if (x.spendScope) lines.push(`_${cell(x.spendScope)}_`, '');
  lines.push('### Day by day', '', `\`${sparkline(x.days.map((d) => d.amount))}\``, '', '| day | spend |', '| --- | ---: |', ...x.days.map((d) => `| ${d.date}${d.complete ? '' : ' (part)'} | ${cell(x.amount(d.amount))} |`), '');
  lines.push('### Models', '');
  if (r.models.length === 0) lines.push('No model cost money in either period.', '');
  else {
    lines.push('| model | previous | current | change | change % |', '| --- | ---: | ---: | ---: | ---: |');
    for (const m of r.models) lines.push(`| ${cell(m.model ?? '')} | ${cell(x.amount(m.previous))} | ${cell(x.amount(m.current))} | ${cell(x.signed(m.change))} | ${cell(x.percent(m))} |`);
    lines.push(`| **${r.otherKeys ? 'this key' : 'total'}** | ${cell(x.amount(r.modelsTotal.previous))} | ${cell(x.amount(r.modelsTotal.current))} | ${cell(x.signed(r.modelsTotal.change))} | ${cell(x.percent(r.modelsTotal))} |`);
    if (r.otherKeys && x.otherKeys) lines.push(`| other keys | ${cell(x.amount(x.otherKeys.previous))} | ${cell(x.amount(x.otherKeys.current))} | ${cell(x.signed(x.otherKeys.change))} | ${cell(x.percent(r.otherKeys))} |`, `| **the account** | ${cell(x.amount(r.spend.previous))} | ${cell(x.amount(r.spend.current))} | ${cell(x.signed(r.spend.change))} | ${cell(x.percent(r.spend))} |`);
    lines.push('');
    if (x.modelsScope) lines.push(`_${cell(x.modelsScope)}_`, '');
    if (x.cache) lines.push(cell(x.cache), '');
  }
  if (x.budgets.length) lines.push('### Budgets', '', ...x.budgets.map((b) => `- **${cell(b.name)}**: ${cell(b.text)}`), '');
  lines.push('### Anomalies', '', ...(x.findings.length ? x.findings.map((f) => `- **${cell(f.kind)}** ${cell(f.when)}: ${cell(f.text)}`) : ['Nothing unusual.']), '');
  return `${lines.join('\n')}\n`;
}

export async function renderReport(r: Report, profile: string, ctx: Context): Promise<string> {
  const [{ renderTable, renderPanel, barMaker }, { styleFor }, { fitLines }] = await Promise.all([import('./table.js'), import('./style.js'), import('./wrap.js')]);
  const style = await styleFor(ctx);
  const x = reportFacts(r, ctx.options.exact);
  // The title, then where it is from, each fitted: nothing passes the terminal's width.
  const out: string[] = [style.paint.bold(await fitLines(`tally report: ${x.label}`, style.width)), style.paint.dim(await fitLines(`${x.range}, profile ${profile}`, style.width)), ''];
  const panel: [string, string][] = [['Spend', x.spend], ['Balance now', x.balance], ['Runway now', x.runway]];
  if (x.quota) panel.push(['Key quota', x.quota]);
  if (x.top.length) panel.push(['Top models', x.top.map((m) => `${m.model} ${x.amount(m.current)}`).join(' · ')]);
  for (const b of x.budgets) panel.push([`Budget ${b.name}`, b.text]);
  out.push(await renderPanel(panel, style));
  const bar = barMaker(20, style);
  const largest = x.days.reduce((m, d) => Decimal.max(m, d.amount), new Decimal(0));
  out.push(await renderTable({ columns: [{ header: 'day' }, { header: 'spend', align: 'decimal' }, { header: '', name: 'bar', drawn: true, dropOrder: 1 }], rows: x.days.map((d) => [d.complete ? d.date : `${d.date} (part)`, x.amount(d.amount), bar(largest.isZero() ? 0 : d.amount.div(largest).toNumber())]) }, style));
  if (r.models.length) {
    out.push(
      await renderTable(
        {
          columns: [{ header: 'model' }, { header: 'previous', align: 'decimal', dropOrder: 2 }, { header: 'current', align: 'decimal' }, { header: 'change', align: 'decimal' }, { header: '%', align: 'right', dropOrder: 1 }],
          rows: r.models.map((m) => [m.model ?? '', x.amount(m.previous), x.amount(m.current), x.signed(m.change), x.percent(m)]),
          footer: ['total', x.amount(r.modelsTotal.previous), x.amount(r.modelsTotal.current), x.signed(r.modelsTotal.change), x.percent(r.modelsTotal)],
        },
        style,
      ),
    );
  }
  const notes = [`previous period ${x.previousRange}`];
  if (x.reconcile) notes.push(x.reconcile);
  if (x.cache) notes.push(x.cache);
  if (x.spendScope) notes.push(`spend: ${x.spendScope}`);
  if (x.modelsScope) notes.push(`models: ${x.modelsScope}`);
  notes.push(...(x.findings.length ? x.findings.map((f) => `anomaly (${f.kind}, ${f.when}): ${f.text}`) : ['anomalies: nothing unusual']));
  out.push(style.paint.dim(await fitLines(notes.join('\n'), style.width)), '');
  return out.join('\n');
}

/** Several profiles' reports as one document: each profile's, those not reported with why, and the totals (each account once). */
export function fleetReportsJson({ items, failed, totals, groups }: FleetReports) {
  return {
    profiles: [...items.map((i) => reportJson(i.report, i.profile)), ...failed.map((f) => ({ profile: f.profile, error: f.error }))],
    totals: { accounts: totals.accounts, current: totals.current.toFixed(), previous: totals.previous.toFixed(), change: totals.current.minus(totals.previous).toFixed() },
    ...(groups ? { groups: groups.rows.map((g) => ({ group: g.group, profiles: g.profiles, spend: g.spend.toFixed() })) } : {}),
  };
}

/** Several profiles' digests: the spend of every account once, the profiles not reported, then each profile's digest (as text or Markdown). */
export async function renderFleetReports({ items, failed, totals, groups }: FleetReports, ctx: Context, markdown: boolean): Promise<string> {
  const byGroup = groups ? `; by group: ${groups.rows.map((g) => `${g.group} ${formatAmount(g.spend, 'account')}${g.profiles.length ? ` (${g.profiles.join(', ')})` : ''}`).join(', ')}` : '';
  const totalLine = `Spend of ${totals.accounts} account${totals.accounts === 1 ? '' : 's'}, each counted once: ${formatAmount(totals.current, 'account')} (previous ${formatAmount(totals.previous, 'account')})${byGroup}`;
  const parts = await Promise.all(items.map((i) => (markdown ? reportMarkdown(i.report, i.profile, ctx.options.exact) : renderReport(i.report, i.profile, ctx))));
  const missing = failed.map((f) => `profile ${f.profile}: not reported (${f.error.message})`);
  if (markdown) return `# tally report, ${items.length} profiles\n\n**${totalLine}**\n\n${missing.map((m) => `> ${escapeMarkdown(m)}\n\n`).join('')}${parts.join('\n')}`;
  return `${totalLine}\n${missing.map((m) => `${m}\n`).join('')}\n${parts.join('\n')}`;
}
