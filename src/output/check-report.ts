// What `tally check` reports, in every form a person or a CI system reads: the words of each
// condition, the Markdown step summary, the JUnit XML file and GitHub's workflow annotations.
// One profile's checks, or a fleet's (a group per profile, each named by it): the same rules.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { writeReportFile } from '../settings/report-file.js';
import { appendToFile } from '../settings/files.js';
import { junitXml } from './junit.js';
import type { CheckResult, GateWords, Level, Unit } from '../figures/check-gates.js';
import { escapeMarkdown, escapeWorkflowData, escapeWorkflowProperty } from './escape.js';
import { AMOUNT_DECIMALS, fixedPlaces, formatAmount, formatCount, placesBeside } from './money.js';
import type { Parsed } from '../domain/json.js';
import type { FleetRow } from './fleet.js';

export type { CheckResult, Level, Unit } from '../figures/check-gates.js';

/** The words of gates' details, as every view writes amounts, windows and findings. */
export async function gateWords(): Promise<GateWords> {
  const [{ formatStatedAmount }, { describeWindow }, { findingMessage, findingWhen }, { budgetWhose }] = await Promise.all([import('./money.js'), import('./window-text.js'), import('./anomalies.js'), import('./budgets.js')]);
  return {
    amount: (value, currency) => formatAmount(value, 'account', currency === undefined ? {} : { currency }),
    stated: (value, currency) => formatStatedAmount(value, currency),
    window: (window, zone, length) => describeWindow(window, zone, length),
    finding: (f, a) => findingMessage(f, a),
    findingWhen: (f, zone, bucket) => findingWhen(f, zone, bucket),
    budgetWhose,
  };
}

export interface CheckLine {
  label: string;
  /** `actual ¥5,770.95, limit ¥100.00`, amounts shown as tables show them. */
  text: string;
}

/** One profile's conditions (no profile: a single run), or why it has none (it failed, or was skipped). */
export interface CheckGroup {
  profile?: string;
  checks: CheckResult[];
  lines: CheckLine[];
  /** Conditions --fail-open skipped: not measured. */
  skipped: string[];
  /** The profile could not be checked at all (its error, or why it was skipped). */
  error?: string;
}

/** Each check in words, for the terminal, the annotations and the step summary alike. */
export function checkLines(checks: CheckResult[], exact: boolean): CheckLine[] {
  // An actual is shown at least as precisely as its limit, and more where the two would read the same.
  const show = (value: string, unit: Unit, places?: number) =>
    unit === 'percent'
      ? `${exact || places === undefined ? value : fixedPlaces(value, places)}%`
      : unit === 'days' ? `${formatCount(value)} day${value === '1' ? '' : 's'}` : unit === 'model' ? value : formatAmount(value, 'account', { currency: unit, exact, decimals: places });
  return checks.map((c) => {
    let text: string;
    // A finding (check --anomalies) is its evidence, in words.
    if (c.unit === 'finding') return { label: c.level.toUpperCase(), text: c.actual === null ? `not measured${c.detail ? ` (${c.detail})` : ''}` : (c.detail ?? '') };
    if (c.unit === 'model') text = `${c.limit}: ${c.actual ?? 'not checked'}`;
    else if (c.actual === null) text = `limit ${show(c.limit, c.unit)}: not measured`;
    else if (c.unit === 'days') text = `actual ${show(c.actual, c.unit)}, limit ${show(c.limit, c.unit)}`;
    else {
      const places = placesBeside(c.actual, c.limit, c.unit === 'percent' ? 1 : AMOUNT_DECIMALS.account);
      // A share's limit reads as it was written (50%); an amount's in the same places as the actual.
      text = `actual ${show(c.actual, c.unit, places)}, limit ${show(c.limit, c.unit, c.unit === 'percent' ? undefined : places)}`;
    }
    if (c.detail) text += ` (${c.detail})`;
    return { label: c.level.toUpperCase(), text };
  });
}

/** The Markdown summary: what goes to $GITHUB_STEP_SUMMARY, and what --markdown prints (a profile column for a fleet). */
export function checksMarkdown(groups: CheckGroup[]): string {
  const cell = escapeMarkdown;
  const icon = { pass: '✅ pass', warn: '⚠️ warn', fail: '❌ fail' };
  const fleet = groups.some((g) => g.profile !== undefined);
  const rows = groups.flatMap((g) => {
    const who = fleet ? ` ${cell(g.profile ?? '')} |` : '';
    if (g.error !== undefined) return [`| ⛔ not measured |${who} — | ${cell(g.error)} |`];
    return g.checks.map((c, i) => `| ${icon[c.level]} |${who} ${cell(c.name)} | ${cell(g.lines[i]!.text)} |`);
  });
  return ['### tally check', '', fleet ? '| result | profile | check | measured |' : '| result | check | measured |', fleet ? '| --- | --- | --- | --- |' : '| --- | --- | --- |', ...rows, ''].join('\n');
}

/**
 * The JUnit XML report, written whole as every report file is (settings/report-file.ts). What
 * went wrong is returned, not thrown: the results are printed whatever happens to the file, and
 * the caller ends with the error after them.
 */
export function writeJunit(ctx: Context, path: string, groups: CheckGroup[]): UsageError | undefined {
  try {
    writeReportFile(path, junitXml(groups, new Date(ctx.now()).toISOString()), { flag: '--junit', mode: 0o644, scrub: (t) => ctx.secrets.scrub(t) });
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
}

/** GitHub Actions: annotations for failures and warnings (titled by profile in a fleet), and a Markdown summary. */
export function reportToGitHub(ctx: Context, groups: CheckGroup[]): void {
  if (ctx.env.GITHUB_ACTIONS !== 'true') return;
  const escape = escapeWorkflowData;
  // The runner reads workflow commands from both streams; keep a --json document on stdout clean.
  const write = (line: string) => (ctx.options.json ? ctx.io.err(line) : ctx.io.out(line));
  for (const g of groups) {
    const title = g.profile === undefined ? 'tally check' : escapeWorkflowProperty(`tally check (${g.profile})`);
    if (g.error !== undefined) write(`::error title=${title}::${escape(`not measured: ${g.error}`)}\n`);
    for (const [i, check] of g.checks.entries()) {
      const text = `${check.name}: ${g.lines[i]!.text}`;
      if (check.level === 'fail') write(`::error title=${title}::${escape(text)}\n`);
      if (check.level === 'warn') write(`::warning title=${title}::${escape(text)}\n`);
    }
    if (g.skipped.length > 0) write(`::warning title=${title}::${escape(`--fail-open: ${g.skipped.join(', ')} skipped because the service could not be reached`)}\n`);
  }
  const summary = ctx.env.GITHUB_STEP_SUMMARY;
  if (!summary) return;
  try {
    appendToFile(summary, ctx.secrets.scrub(`${checksMarkdown(groups)}\n`));
  } catch (error) {
    ctx.warn(`could not append to $GITHUB_STEP_SUMMARY (${(error as Error).message})`);
  }
}

export async function renderChecks(checks: CheckResult[], lines: CheckLine[], ctx: Context): Promise<string> {
  return renderLevelLines(checks.map((c, i) => ({ level: c.level, name: c.name, text: lines[i]!.text })), ctx);
}

/**
 * PASS, WARN or FAIL in its colour, the name, and the text wrapped under itself: the lines of
 * `check` and of `doctor` alike (names and texts escaped: a gate's name can hold a model's).
 */
export async function renderLevelLines(items: { level: Level; name: string; text: string }[], ctx: Context): Promise<string> {
  const [{ styleFor }, { fitLines }, { escapeControl }] = await Promise.all([import('./style.js'), import('./wrap.js'), import('./escape.js')]);
  const style = await styleFor(ctx);
  const paint = style.paint;
  const color = { pass: paint.green, warn: paint.yellow, fail: paint.red };
  const width = Math.max(...items.map((c) => escapeControl(c.name).length));
  const out: string[] = [];
  for (const item of items) {
    const head = `${color[item.level](item.level.toUpperCase())}  ${escapeControl(item.name).padEnd(width)}  `;
    const body = await fitLines(escapeControl(item.text), style.width - width - 8);
    out.push(head + body.split('\n').join(`\n${' '.repeat(width + 8)}`));
  }
  return `${out.join('\n')}\n`;
}

/** A check document whose conditions --fail-open skipped was not measured: never "pass". */
function notMeasured(result: Parsed<{ checks: CheckResult[] }>): boolean {
  return result.checks.some((c) => c.actual === null && typeof c.detail === 'string' && c.detail.startsWith('skipped'));
}

/** The check's row in the fleet's table: the result, and each condition's level. */
export const checkFleetRow: FleetRow<Parsed<{ ok: boolean; checks: CheckResult[] }>> = {
  columns: [
    { header: 'result', value: (r) => (notMeasured(r) ? 'not measured' : r.ok ? 'pass' : 'FAIL') },
    { header: 'conditions', value: (r) => r.checks.map((c) => `${c.level.toUpperCase()} ${c.name}`).join(' · ') },
  ],
};
