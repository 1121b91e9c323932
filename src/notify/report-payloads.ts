// What each kind of destination receives of a report, in the form it reads best: Slack a few
// Markdown (mrkdwn) blocks within its limits, a webhook the whole JSON document, ntfy a short
// text without links. Built from the same facts as every other view of the report.
import { stringifyJson } from '../domain/json.js';
import type { Report } from '../figures/report.js';
import { reportFacts, reportJson, sparkline } from '../output/report.js';
import type { Delivery, NotifyKind } from './payloads.js';
import { NTFY_MAX_BYTES, asciiHeader, clipBytes, clipSlack, isTextKind, shortName, slackEscape } from './payloads.js';

/** Slack: a section's text is at most 3,000 characters; a message at most 50 blocks. */
const SLACK_SECTION = 3000;

export function reportPayload(kind: NotifyKind, report: Report, profile: string, scrub: (text: string) => string): Delivery {
  const x = reportFacts(report);
  if (isTextKind(kind)) {
    // A chat tool or an e-mail: the report as plain lines (each tool's limit is kept at delivery).
    const lines = [`tally report: ${x.label} (${profile})`, x.range, `Spend ${x.spend}`, ...(x.reconcile ? [x.reconcile] : []), `Balance now ${x.balance}, runway ${x.runway}${x.quota ? `, ${x.quota}` : ''}`, ...(x.top.length ? ['Top models:', ...x.top.map((m) => `- ${shortName(m.model ?? '')}: ${x.amount(m.current)} (${x.percent(m)})`)] : []), ...(x.budgets.length ? ['Budgets:', ...x.budgets.map((b) => `- ${b.name}: ${b.text}`)] : []), x.findings.length ? `${x.findings.length} anomal${x.findings.length === 1 ? 'y' : 'ies'}: tally anomalies` : 'Nothing unusual.'];
    return { contentType: 'text/plain; charset=utf-8', headers: {}, body: scrub(lines.join('\n')), title: `tally report: ${x.label} (${profile})` };
  }
  switch (kind) {
    case 'webhook':
      return { contentType: 'application/json', headers: {}, body: scrub(stringifyJson({ source: 'tally', kind: 'report', ...reportJson(report, profile) })) };
    case 'slack': {
      const top = x.top.map((m) => `• ${shortName(m.model ?? '')}: ${x.amount(m.current)} (${x.percent(m)})`).join('\n');
      const findings = x.findings.slice(0, 10).map((f) => `• ${f.kind} ${f.when}: ${f.text}`).join('\n');
      const sections = [
        `*tally report: ${x.label}* (${profile})\n${x.range}`,
        `*Spend* ${x.spend}${x.reconcile ? `\n${x.reconcile}` : ''}\n*Balance now* ${x.balance} · *Runway now* ${x.runway}${x.quota ? ` · ${x.quota}` : ''}`,
        `*Day by day* \`${sparkline(x.days.map((d) => d.amount))}\``,
        ...(top ? [`*Top models*\n${top}`] : []),
        ...(x.budgets.length ? [`*Budgets*\n${x.budgets.map((b) => `• ${b.name}: ${b.text}`).join('\n')}`] : []),
        `*Anomalies*\n${findings || 'Nothing unusual.'}${x.findings.length > 10 ? `\n…and ${x.findings.length - 10} more (tally anomalies)` : ''}`,
      ].map((text) => clipSlack(slackEscape(scrub(text)), SLACK_SECTION));
      return {
        contentType: 'application/json',
        headers: {},
        body: JSON.stringify({ text: clipSlack(slackEscape(scrub(`tally report: ${x.label}: spend ${x.spend}`)), SLACK_SECTION), blocks: sections.slice(0, 50).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })) }),
      };
    }
    case 'ntfy':
      return {
        contentType: 'text/plain; charset=utf-8',
        headers: { Title: asciiHeader(`tally report: ${x.label} (${profile})`), Tags: 'bar_chart' },
        body: clipBytes(
          scrub(
            [`Spend ${x.spend}`, `Balance now ${x.balance}, runway ${x.runway}`, ...(x.top.length ? [`Top: ${x.top.slice(0, 3).map((m) => `${shortName(m.model ?? '', 40)} ${x.amount(m.current)}`).join(', ')}`] : []), x.findings.length ? `${x.findings.length} anomal${x.findings.length === 1 ? 'y' : 'ies'}: tally anomalies` : 'Nothing unusual.'].join('\n'),
          ),
          NTFY_MAX_BYTES,
        ),
      };
  }
}
