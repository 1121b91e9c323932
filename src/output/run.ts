// What `tally run` says on stderr (it never writes to stdout: that is its command's), what it adds
// to the GitHub step summary, and its --json-summary document (schemas/run.schema.json).
import type { Decimal } from '../domain/money.js';
import type { JsonObject } from '../domain/json.js';
import { timeSeconds } from '../domain/records.js';
import { type Zone, isoInZone } from '../domain/zone.js';
import type { LandedCall, RunReading, RunScope, RunSource } from '../figures/run-watch.js';
import { escapeControl, escapeMarkdown } from './escape.js';
import { formatAmount } from './money.js';
import { spanText } from './follow.js';
import { wallText } from './window-text.js';
import type { Unreachable } from '../run/processes.js';

export interface RunLimits {
  /** The command's name (its first word; its arguments may hold secrets and are never written). */
  command: string;
  scope: RunScope;
  max: Decimal;
  warn: Decimal | undefined;
  pollSeconds: number;
  graceSeconds: number;
}

/** How a run ended. */
export type RunOutcome = 'finished' | 'stopped' | 'stopped_unwatched';

export interface RunSummary {
  command: string;
  outcome: RunOutcome;
  /** The command's own exit code, or the signal that ended it. */
  exit_code: number | null;
  signal: string | null;
  /** tally's exit code: the command's, 5 when the limit stopped it, 4 when the spend could not be read under --fail-closed. */
  tally_exit_code: number;
  currency: string | null;
  /** What the run spent as last read (null: never read). */
  spent: string | null;
  max_spend: string;
  warn_spend: string | null;
  warned: boolean;
  /** Whether the spend went past --max-spend: the stop, or the last reading after the command ended on its own. */
  past_max_spend: boolean;
  scope: RunScope;
  source: RunSource | null;
  /** Calls counted from the per-call log (the log source only), and those without a cost tally can read. */
  calls: number | null;
  unpriced_calls: number | null;
  /** Whether the spend may be more than read (counted from later than the start, a day of the key's counter unseen, readings that failed at the end). */
  floor: boolean;
  started_at: number;
  started_at_iso: string;
  ended_at: number;
  ended_at_iso: string;
  duration_seconds: number;
  counted_from: number | null;
  readings: number;
  failed_readings: number;
  /** When the limit was found crossed, and how the command was stopped. */
  crossed_at: number | null;
  stopped_by: 'SIGTERM' | 'SIGKILL' | null;
  /** The calls that took the spend past the limit (the log source only). */
  crossing_calls: { at: number | null; model: string | null; cost: string | null }[];
  profile: string;
  gateway: string;
  /** Refunds and negative charges in the log since the start, shown apart (null: no log followed). */
  refunded: string | null;
  /** Whether the gateway's figures settled after the run's processes ended, within --settle. */
  settled: boolean;
  /** Whose exit code tally_exit_code is. */
  exit_code_of: 'command' | 'tally';
  /** Processes of the run tally could not stop. */
  left_running: Unreachable[];
  /** Processes the command left running when it ended, stopped by tally. */
  stopped_after_end: number;
  /** With --proxy: the calls the firewall refused (null without it). */
  refused_calls: number | null;
}

/** Processes the command left running when it ended: the run's, stopped before tally ends. */
export function leftRunningText(limits: RunLimits, count: number, graceSeconds: number): string {
  return `tally run: ${escapeControl(limits.command)} ended, leaving ${count} ${count === 1 ? 'process' : 'processes'} it started running: stopping ${count === 1 ? 'it' : 'them'} (SIGTERM, then SIGKILL after ${graceSeconds}s)`;
}

/** A process of the run tally cannot stop, named with its pid. */
export function unreachableText(process: Unreachable): string {
  return `tally run: process ${process.pid} (${escapeControl(process.name)}) was started by the run and is still running: tally cannot stop it (${process.why}); stop it yourself: kill ${process.pid}`;
}

/** Said while the gateway's figures are read again after the run's processes ended. */
export function settlingText(seconds: number): string {
  return `tally run: waiting for the gateway to book the run's last calls (up to ${seconds}s; --settle sets how long)`;
}

export function unsettledText(settleSeconds: number): string {
  return `tally run: the gateway's figures did not settle within ${settleSeconds}s (--settle): the run's spend may be more than said`;
}

export function whose(scope: RunScope): string {
  return scope === 'key' ? "this key's spend" : "the whole account's spend (every key)";
}

function sourceText(source: RunSource | undefined | null): string {
  if (source === 'log') return 'its per-call log';
  if (source === 'key counter') return "the key's daily counter";
  if (source === 'account counter') return "the account's lifetime spend";
  return 'the gateway';
}

const money = (amount: Decimal | string, currency: string | undefined | null) => formatAmount(amount, 'account', { currency: currency ?? 'CNY' });

/** The first line: what is watched, how often, and how late a stop can come. */
export function startText(limits: RunLimits, currency: string | undefined): string {
  const warn = limits.warn ? `, warns past ${money(limits.warn, currency)}` : '';
  return `tally run: ${escapeControl(limits.command)} runs with --max-spend ${money(limits.max, currency)} on ${whose(limits.scope)}${warn}, read every ${limits.pollSeconds}s; a stop comes within one reading plus the gateway's own lag (its figures can trail by seconds to minutes)`;
}

/** --debug: one reading. */
export function readingText(reading: RunReading, zone: Zone): string {
  const calls = reading.calls === undefined ? '' : `, ${reading.calls} calls (${reading.landed.length} new${reading.unpriced ? `, ${reading.unpriced} without a cost` : ''})`;
  return `tally run: reading: ${money(reading.spent, reading.currency)} spent since ${wallText(reading.countedFrom, zone)}, from ${sourceText(reading.source)}${calls}${reading.floor ? ' (at least)' : ''}`;
}

export function warnText(reading: RunReading, limits: RunLimits): string {
  return `tally run: ${whose(limits.scope)} since the start is ${money(reading.spent, reading.currency)}, past --warn-spend ${money(limits.warn!, reading.currency)} (the limit is ${money(limits.max, reading.currency)})`;
}

/** The calls that took the spend from below `max` to past it, and those after them in the same reading. */
export function crossingCalls(reading: RunReading, max: Decimal): LandedCall[] {
  let before = reading.logged ?? reading.spent;
  for (const call of reading.landed) if (call.cost !== undefined) before = before.minus(call.cost);
  for (const [index, call] of reading.landed.entries()) {
    if (call.cost !== undefined) before = before.plus(call.cost);
    if (before.gt(max)) return reading.landed.slice(index);
  }
  return [];
}

/** A call as a stop line names it: its time, model and cost, where the log states them. */
export function callFacts(call: LandedCall, reading: RunReading): { at: number | null; model: string | null; cost: string | null } {
  const entry: JsonObject = call.entry;
  const time = reading.fields?.time === undefined ? undefined : timeSeconds(entry[reading.fields.time]);
  const modelField = Object.keys(entry).find((name) => /^model(_?name)?$/i.test(name) && typeof entry[name] === 'string');
  return { at: time ?? null, model: modelField ? String(entry[modelField]) : null, cost: call.cost ?? null };
}

export function stopText(reading: RunReading, limits: RunLimits, zone: Zone, groupWide: boolean): string {
  const calls = crossingCalls(reading, limits.max);
  const named = calls.slice(0, 3).map((call) => {
    const f = callFacts(call, reading);
    return [f.at === null ? undefined : wallText(f.at, zone).slice(11), f.model === null ? undefined : escapeControl(f.model).slice(0, 60), f.cost === null ? 'no cost stated' : formatAmount(f.cost, 'per-call', { currency: reading.currency ?? 'CNY' })].filter(Boolean).join(' ');
  });
  const more = calls.length > 3 ? ` and ${calls.length - 3} more` : '';
  const booked = reading.logged === undefined ? '' : ` (the key's daily counter; its per-call log has booked ${money(reading.logged, reading.currency)} of it so far)`;
  const which = reading.source === 'log' ? `${booked}${named.length ? `; the calls that crossed it: ${named.join(', ')}${more}` : ''}` : ` (from ${sourceText(reading.source)}: no per-call detail)`;
  return `tally run: ${whose(limits.scope)} since the start is ${money(reading.spent, reading.currency)}, past --max-spend ${money(limits.max, reading.currency)}${which}. Stopping ${escapeControl(limits.command)}: SIGTERM to ${groupWide ? 'its process group' : 'it and the processes it started'}, SIGKILL after ${limits.graceSeconds}s`;
}

/** The limit passed in the reading after the command ended on its own (an alert's message). */
export function lateText(reading: RunReading, limits: RunLimits): string {
  return `tally run: ${escapeControl(limits.command)} ended on its own; the reading after it finds ${whose(limits.scope)} since the start at ${money(reading.spent, reading.currency)}, past --max-spend ${money(limits.max, reading.currency)}`;
}

export function unreadText(message: string, retrySeconds: number, failClosed: boolean): string {
  return failClosed
    ? `tally run: the spend cannot be read (${message}); --fail-closed: stopping the command`
    : `tally run: the spend cannot be read (${message}); the limit is not watched until it can be; reading again in ${retrySeconds}s`;
}

/** The last line: how the command ended and what the run spent. */
export function endText(summary: RunSummary): string {
  const how =
    summary.outcome === 'stopped'
      ? `was stopped past --max-spend (${summary.stopped_by === 'SIGKILL' ? 'killed after the grace' : 'ended on SIGTERM'})`
      : summary.outcome === 'stopped_unwatched'
        ? 'was stopped: the spend could not be read (--fail-closed)'
        : summary.signal
          ? `ended on ${summary.signal}`
          : // 4 and 5 are tally's own codes too: whose this one is, is said.
            `exited ${summary.exit_code}${summary.exit_code === 4 || summary.exit_code === 5 ? ' (its own exit code, passed on; not tally\'s)' : ''}`;
  const spent =
    summary.spent === null
      ? 'its spend could not be read'
      : `${whose(summary.scope)} since the start: ${summary.floor ? 'at least ' : ''}${money(summary.spent, summary.currency)}${summary.calls === null ? '' : ` (${summary.calls} ${summary.calls === 1 ? 'call' : 'calls'})`} against --max-spend ${money(summary.max_spend, summary.currency)}, read from ${sourceText(summary.source)}`;
  // The gateway's figures lag: calls of the command's last moments can take the spend past the
  // limit after it ended on its own; said, never hidden (its exit code stands).
  const late = summary.outcome === 'finished' && summary.past_max_spend ? ' — past the limit, found in the reading after it ended (the gateway had not yet counted those calls while it ran)' : '';
  const refunds = summary.refunded !== null && summary.refunded !== '0' ? `; refunds since the start ${money(summary.refunded, summary.currency)}, shown apart (they do not lower the spend a limit is measured against)` : '';
  return `tally run: ${escapeControl(summary.command)} ${how} after ${spanText(summary.duration_seconds / 60)}; ${spent}${late}${refunds}`;
}

/** What the GitHub step summary gets. */
export function summaryMarkdown(summary: RunSummary): string {
  const cell = escapeMarkdown;
  const rows = [
    ['command', cell(summary.command)],
    ['ended', summary.outcome === 'finished' ? (summary.signal ? `on ${summary.signal}` : `exit ${summary.exit_code}`) : summary.outcome === 'stopped' ? '**stopped**: past the limit' : '**stopped**: spend unreadable (--fail-closed)'],
    ['spent', summary.spent === null ? 'could not be read' : `${summary.floor ? 'at least ' : ''}${money(summary.spent, summary.currency)}${summary.calls === null ? '' : ` (${summary.calls} calls)`}`],
    ['limit', `${money(summary.max_spend, summary.currency)}${summary.warn_spend ? ` (warns at ${money(summary.warn_spend, summary.currency)})` : ''}${summary.outcome === 'finished' && summary.past_max_spend ? ' — **passed** in the last reading, after the command ended' : ''}`],
    ['whose', whose(summary.scope)],
    ['read from', `${sourceText(summary.source)}, ${summary.readings} readings${summary.failed_readings ? ` (${summary.failed_readings} failed)` : ''}`],
    ['time', `${summary.started_at_iso} → ${summary.ended_at_iso}`],
  ];
  return `### tally run\n\n| | |\n|---|---|\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`;
}

/** What the watch of a run saw (loops/run-limit.ts), for the end: the last reading, how many were made and failed, how the run ended so far. */
export interface RunSeen {
  last: RunReading | undefined;
  readings: number;
  failed: number;
  /** Readings that failed in a row at the end (a run whose spend could not be read lately is a floor). */
  failures: number;
  warned: boolean;
  outcome: RunOutcome;
  crossedAt: number | null;
  stoppedBy: RunSummary['stopped_by'];
  crossing: RunSummary['crossing_calls'];
  /** The longest the log took to book a call during the run (seconds): how long its figures take to settle. */
  lag: number;
}

/** The run's summary document (tally schema run): what the run was asked, what its watch saw, how it ended. */
export function runSummaryJson(run: {
  limits: RunLimits;
  max: Decimal;
  warn: Decimal | undefined;
  scope: RunScope;
  child: { code: number | null; signal: string | null };
  tallyExit: number;
  seen: RunSeen & { settled: boolean };
  startCurrency: string | undefined;
  source: RunSummary['source'] | undefined;
  unreachable: { pid: number; name: string; why: string }[];
  stoppedAfterEnd: number;
  refused: number | null;
  startedAt: number;
  endedAt: number;
  zone: Zone;
  profile: string;
  gateway: string;
}): RunSummary {
  const { seen, max, warn } = run;
  const { last, outcome } = seen;
  return {
    command: run.limits.command,
    outcome,
    exit_code: run.child.code,
    signal: run.child.signal,
    tally_exit_code: run.tallyExit,
    currency: last?.currency ?? run.startCurrency ?? null,
    spent: last ? last.spent.toFixed() : null,
    max_spend: max.toFixed(),
    warn_spend: warn ? warn.toFixed() : null,
    warned: seen.warned,
    // A stop the firewall made (it refused the call that would have passed) is no spend past the limit.
    past_max_spend: last?.spent.gt(max) ?? false,
    scope: run.scope,
    source: last?.source ?? run.source ?? null,
    calls: last?.calls ?? null,
    unpriced_calls: last?.unpriced ?? null,
    floor: last ? last.floor || seen.failures > 0 || !seen.settled : false,
    refunded: last && last.source === 'log' ? last.refunded.toFixed() : null,
    settled: seen.settled,
    exit_code_of: outcome === 'finished' ? 'command' : 'tally',
    left_running: run.unreachable.map(({ pid, name, why }) => ({ pid, name, why })),
    stopped_after_end: run.stoppedAfterEnd,
    refused_calls: run.refused,
    started_at: run.startedAt,
    started_at_iso: isoInZone(run.startedAt, run.zone),
    ended_at: run.endedAt,
    ended_at_iso: isoInZone(run.endedAt, run.zone),
    duration_seconds: run.endedAt - run.startedAt,
    counted_from: last?.countedFrom ?? null,
    readings: seen.readings,
    failed_readings: seen.failed,
    crossed_at: seen.crossedAt,
    stopped_by: seen.stoppedBy,
    crossing_calls: seen.crossing,
    profile: run.profile,
    gateway: run.gateway,
  };
}
