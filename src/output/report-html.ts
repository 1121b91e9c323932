// The digest as one self-contained HTML file a manager opens: inline SVG charts (the day-by-day
// spend, the split by model), no script, no external request (a Content-Security-Policy says so),
// readable printed and in dark mode, every value escaped. Figures carry their exact decimal in a
// data-value attribute, so what the page shows can be checked against the JSON.
import type { Decimal } from '../domain/money.js';
import type { Report } from '../figures/report.js';
import type { FleetTotals } from '../figures/report-fleet.js';
import { reportFacts } from './report.js';

/**
 * Text and attribute values made inert: & < > " ' and no control characters. Bidirectional
 * controls (embeddings, overrides, isolates, marks) are dropped, as the terminal escapes them: a
 * model name ending in U+202E must not reverse the rest of its line, tally's amounts included.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, ' ')
    .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #59636e; --bg: #ffffff; --card: #f6f8fa; --bar: #2f6feb; --up: #b42318; --down: #067647; --grid: #d0d7de; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --card: #161b22; --bar: #4493f8; --up: #f85149; --down: #3fb950; --grid: #30363d; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 960px; padding: 24px 16px; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.5rem; margin: 0 0 4px; } h2 { font-size: 1.1rem; margin: 28px 0 8px; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin-top: 16px; }
.card { background: var(--card); border-radius: 8px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: .85rem; } .card .value { font-size: 1.2rem; font-variant-numeric: tabular-nums; white-space: nowrap; } .card .sub { color: var(--muted); font-size: .8rem; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--grid); } td.n, th.n { text-align: right; }
.up { color: var(--up); } .down { color: var(--down); }
svg { display: block; } svg .bar { fill: var(--bar); } svg .bar.part { fill-opacity: .45; } svg .axis { stroke: var(--grid); }
svg.daily { width: 100%; height: 160px; }
.scale, .ends { font-size: .8rem; } .ends { display: flex; justify-content: space-between; margin-bottom: 8px; }
.mchart { display: grid; grid-template-columns: minmax(0, max-content) minmax(40px, 1fr) max-content; gap: 6px 10px; align-items: center; }
.mrow { display: contents; } .mname { overflow-wrap: anywhere; } .mval { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
svg.models { width: 100%; height: 14px; }
.nw { white-space: nowrap; }
ul.findings { padding-left: 20px; }
@media (max-width: 600px) { body { padding: 16px 10px; font-size: 14px; } th, td { padding: 4px 3px; } td:first-child { overflow-wrap: anywhere; } .wide { display: none; } .card .value { font-size: 1.05rem; } .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media print { :root { --fg: #000; --muted: #444; --bg: #fff; --card: #fff; --bar: #444; --grid: #999; } body { max-width: none; padding: 0; } .card { border: 1px solid #999; } h2 { break-after: avoid; } table, svg { break-inside: avoid; } }
`;

/** How much of the chart's length a value takes: its share of the largest positive value, kept within [0, 1] whatever the signs and sizes (a refund draws no bar). */
function shareOf(value: Decimal, largest: Decimal | undefined): number {
  if (!largest || !largest.isPositive() || largest.isZero() || !value.isPositive()) return 0;
  const share = value.div(largest).toNumber();
  return Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
}

function largestOf(values: Decimal[]): Decimal | undefined {
  return values.reduce<Decimal | undefined>((m, v) => (v.isPositive() && (!m || v.gt(m)) ? v : m), undefined);
}

/**
 * One bar per day (its date and exact amount in attributes, its height to scale) with no text
 * inside the drawing, which scales with the page: the scale above it and the first and last
 * dates under it are page text, and the amounts are in the day table that follows.
 */
function dailyChart(days: { date: string; amount: Decimal; complete: boolean }[], amount: (v: Decimal) => string): string {
  const width = 720;
  const height = 160;
  const base = height - 2;
  const largest = largestOf(days.map((d) => d.amount));
  const slot = days.length ? width / days.length : width;
  const bars = days
    .map((d, i) => {
      const h = Math.min(base - 2, Math.max(shareOf(d.amount, largest) > 0 ? 1 : 0, Math.round(shareOf(d.amount, largest) * (base - 4))));
      const x = Math.min(width, i * slot + slot * 0.15).toFixed(1);
      return `<rect class="bar${d.complete ? '' : ' part'}" data-date="${escapeHtml(d.date)}" data-value="${escapeHtml(d.amount.toFixed())}" x="${x}" y="${base - h}" width="${(slot * 0.7).toFixed(1)}" height="${h}"><title>${escapeHtml(`${d.date}: ${amount(d.amount)}${d.complete ? '' : ' (so far)'}`)}</title></rect>`;
    })
    .join('');
  const scale = largest ? `<div class="muted scale">tallest bar ${escapeHtml(amount(largest))}</div>` : '';
  const ends = days.length ? `<div class="ends muted"><span>${escapeHtml(days[0]!.date)}</span><span>${escapeHtml(days[days.length - 1]!.date)}</span></div>` : '';
  const table = `<table class="days"><thead><tr><th>day</th><th class="n">spend</th></tr></thead><tbody>${days.map((d) => `<tr><td>${escapeHtml(d.date)}${d.complete ? '' : ' <span class="muted">(so far)</span>'}</td><td class="n">${escapeHtml(amount(d.amount))}</td></tr>`).join('')}</tbody></table>`;
  return `${scale}<svg class="chart daily" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="spend per day"><line class="axis" x1="0" y1="${base}" x2="${width}" y2="${base}"/>${bars}</svg>${ends}${table}`;
}

/** One horizontal bar per model, the largest first: the name and the amount are page text beside the bar. */
function modelChart(models: { model: string; current: Decimal }[], amount: (v: Decimal) => string): string {
  const largest = largestOf(models.map((m) => m.current));
  const rows = models
    .map((m) => {
      const w = (shareOf(m.current, largest) * 100).toFixed(2);
      return `<div class="mrow"><span class="mname">${escapeHtml(m.model)}</span><svg class="chart models" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(m.model)}"><rect class="bar" data-model="${escapeHtml(m.model)}" data-value="${escapeHtml(m.current.toFixed())}" x="0" y="0" width="${w}" height="10"/></svg><span class="mval">${escapeHtml(amount(m.current))}</span></div>`;
    })
    .join('');
  return `<div class="mchart">${rows}</div>`;
}

/** The page: one report, or a section per profile and the totals (`--all-profiles`). */
export function reportHtml(items: { report: Report; profile: string }[], totals?: FleetTotals, failed: { profile: string; error: { message: string } }[] = [], groups?: { rows: { group: string; profiles: string[]; spend: Decimal }[] }): string {
  const first = items[0]!;
  const x = reportFacts(first.report);
  const e = escapeHtml;
  const title = items.length === 1 ? `tally report: ${x.label} (${first.profile})` : `tally report: ${x.label} (${items.length} profiles)`;
  const totalsHtml = totals
    ? `<h1>${e(title)}</h1><div class="cards"><div class="card"><div class="label">Spend, ${e(String(totals.accounts))} account${totals.accounts === 1 ? '' : 's'} counted once</div><div class="value" data-figure="fleet-spend" data-value="${e(totals.current.toFixed())}">${e(x.amount(totals.current))}</div></div><div class="card"><div class="label">Previous period</div><div class="value" data-figure="fleet-previous" data-value="${e(totals.previous.toFixed())}">${e(x.amount(totals.previous))}</div></div></div>`
    : '';
  // --by group: the period's spend per group, each account once, the unattributed kept: the rows add up to the total above.
  const groupsHtml = groups
    ? `<h2>By group</h2><table class="groups"><thead><tr><th>group</th><th>profiles</th><th class="n">spend</th></tr></thead><tbody>${groups.rows.map((g) => `<tr><td>${e(g.group)}</td><td>${e(g.profiles.join(', ') || '—')}</td><td class="n" data-group="${e(g.group)}" data-value="${e(g.spend.toFixed())}">${e(x.amount(g.spend))}</td></tr>`).join('')}</tbody></table><p class="muted">Each account counted once, in the group of the first of its profiles; profiles in no group are "unattributed", so the groups add up to the total.</p>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${e(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${totalsHtml}${groupsHtml}${failed.map((f) => `<p class="up" data-failed="${e(f.profile)}">Profile ${e(f.profile)}: not reported (${e(f.error.message)})</p>\n`).join('')}${items.map((i) => `<section data-profile="${e(i.profile)}">
${reportSection(i.report, i.profile, totals !== undefined)}
</section>`).join('\n')}
<p class="muted">Amounts in yuan (${e(first.report.forecast.balance.currency)}), rounded to the fen; the gateway states them to more places (tally report --json has every digit). Dates are days of the gateway's grid, both ends included. Made by tally.</p>
</body>
</html>
`;
}

/** Text with its dates kept whole on a line (a narrow screen never breaks inside 2026-11-16). */
function dates(text: string): string {
  return escapeHtml(text).replace(/\d{4}-\d{2}-\d{2}/g, '<span class="nw">$&</span>');
}

function reportSection(r: Report, profile: string, inFleet: boolean): string {
  const x = reportFacts(r);
  const e = escapeHtml;
  const card = (label: string, value: string, figure?: string, exact?: string, sub?: string) =>
    `<div class="card"><div class="label">${e(label)}</div><div class="value"${figure ? ` data-figure="${figure}"` : ''}${exact !== undefined ? ` data-value="${e(exact)}"` : ''}>${e(value)}</div>${sub ? `<div class="sub">${e(sub)}</div>` : ''}</div>`;
  const change = (d: Decimal) => (d.isNegative() ? 'down' : d.isZero() ? '' : 'up');
  const spent = r.models.filter((m) => !m.current.isZero()).sort((a, b) => b.current.comparedTo(a.current));
  const modelRows = r.models
    .map((m) => `<tr><td>${e(m.model ?? '')}</td><td class="n wide">${e(x.amount(m.previous))}</td><td class="n" data-model="${e(m.model ?? '')}" data-value="${e(m.current.toFixed())}">${e(x.amount(m.current))}</td><td class="n ${change(m.change)}">${e(x.signed(m.change))}</td><td class="n wide">${e(x.percent(m))}</td></tr>`)
    .join('');
  const sections = [
    `<${inFleet ? 'h2' : 'h1'}>${inFleet ? `Profile ${e(profile)}` : `tally report: ${dates(x.label)}`}</${inFleet ? 'h2' : 'h1'}><div class="muted">${dates(x.range)} · profile ${e(profile)} · previous period ${dates(x.previousRange)}</div>`,
    `<div class="cards">${card('Spend', x.amount(r.spend.current), 'spend', r.spend.current.toFixed())}${card('Previous period', x.amount(r.spend.previous), 'previous', r.spend.previous.toFixed())}${card('Change', x.signed(r.spend.change), undefined, undefined, x.percent(r.spend))}${card('Balance now', x.balance, 'balance', r.forecast.balance.balance.toFixed())}${card('Runway now', x.runwayDays, undefined, undefined, x.runwayTo)}${x.quota ? card('Key quota', x.quota) : ''}</div>`,
    x.spendScope ? `<p class="muted">${e(x.spendScope)}</p>` : '',
    `<h2>Day by day</h2>${dailyChart(x.days, x.amount)}`,
    `<h2>Models</h2>${spent.length ? modelChart(spent.map((m) => ({ model: m.model ?? '', current: m.current })), x.amount) : '<p>No model cost money in this period.</p>'}`,
    r.models.length ? `<table><thead><tr><th>model</th><th class="n wide">previous</th><th class="n">current</th><th class="n">change</th><th class="n wide">%</th></tr></thead><tbody>${modelRows}</tbody><tfoot><tr><th>${r.otherKeys ? 'this key' : 'total'}</th><th class="n wide">${e(x.amount(r.modelsTotal.previous))}</th><th class="n" data-figure="models-total" data-value="${e(r.modelsTotal.current.toFixed())}">${e(x.amount(r.modelsTotal.current))}</th><th class="n">${e(x.signed(r.modelsTotal.change))}</th><th class="n wide">${e(x.percent(r.modelsTotal))}</th></tr>${r.otherKeys && x.otherKeys ? `<tr><td>other keys</td><td class="n wide">${e(x.amount(x.otherKeys.previous))}</td><td class="n" data-figure="other-keys" data-value="${e(r.otherKeys.current.toFixed())}">${e(x.amount(x.otherKeys.current))}</td><td class="n">${e(x.signed(x.otherKeys.change))}</td><td class="n wide">${e(x.percent(r.otherKeys))}</td></tr><tr><th>the account</th><th class="n wide">${e(x.amount(r.spend.previous))}</th><th class="n">${e(x.amount(r.spend.current))}</th><th class="n">${e(x.signed(r.spend.change))}</th><th class="n wide">${e(x.percent(r.spend))}</th></tr>` : ''}</tfoot></table>${x.modelsScope ? `<p class="muted">${e(x.modelsScope)}</p>` : ''}` : '',
    x.budgets.length ? `<h2>Budgets</h2><ul>${x.budgets.map((b) => `<li><strong>${e(b.name)}</strong>: ${e(b.text)}</li>`).join('')}</ul>` : '',
    `<h2>Anomalies</h2>${x.findings.length ? `<ul class="findings">${x.findings.map((f) => `<li data-kind="${e(f.kind)}"><strong>${e(f.kind)}</strong> ${e(f.when)}: ${e(f.text)}</li>`).join('')}</ul>` : '<p>Nothing unusual.</p>'}`,
  ];
  return sections.filter(Boolean).join('\n');
}
