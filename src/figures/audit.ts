// tally audit's figures: the charges of a window set against the catalog's prices. Per model and
// day, what the usage says was charged against what the prices give for its tokens (or calls);
// then per call from the log where it has the fields: charges that depart beyond the tolerance,
// calls the log marks failed that were charged, calls with tokens and no charge. Names of the
// records' fields are discovered (tokens, calls, cost, status), never assumed.
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';
import type { JsonObject } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import { type UsageWindow } from '../domain/window.js';
import { type PriceRow } from '../domain/catalog.js';
import { type Scope, timeSeconds } from '../domain/records.js';
import { type CallFields, callCost, callFields } from '../domain/calls.js';
import { callsField, usagePerModel } from '../domain/repricing.js';
import { type Expected, type Tolerance, type Verdict, expectedCharge, settle } from '../domain/audit.js';
import { classFields, classTotals, wholeText } from '../domain/token-classes.js';
import { type ModelUsageByPeriod, loadModelUsage, spendFieldsOf } from './usage-by-model.js';
import { LOGS_PATH } from './call-log.js';
import { bucketStart } from '../domain/window.js';
import { fetchAllPages } from './records.js';
import type { WindowOptions } from './day-grid.js';

export interface AuditRow {
  day: number;
  model: string;
  /** null: a record of the day's usage states no charge tally can read (unknown, never zero). */
  charged: Decimal | null;
  expected: Expected;
  verdict: Verdict | 'unknown';
}


export type CallFindingKind = 'above' | 'below' | 'failed_charged' | 'not_charged';

export interface CallFinding {
  kind: CallFindingKind;
  at: number | null;
  id: string | null;
  model: string;
  charged: Decimal;
  expected: Decimal | null;
}

export interface CallAudit {
  /** Calls read, and whether the log was read to its end. */
  read: number;
  complete: boolean;
  /** Calls whose charge tally could set against the prices. */
  priced: number;
  findings: CallFinding[];
  /** Why the calls were not audited (no log, no fields to read). */
  unread?: string;
}

export interface LoadedAudit {
  window: UsageWindow;
  offset: number;
  scope: Scope | undefined;
  pricingVersion: string | undefined;
  tolerance: Tolerance;
  rows: AuditRow[];
  calls: CallAudit;
  /** What is not explained: days above the prices, calls charged above them or charged though they failed. */
  unexplained: number;
}

const MODEL_FIELD = /^model(_?name)?$/i;

export async function loadAudit(ctx: Context, options: WindowOptions & { tolerance: Tolerance }): Promise<LoadedAudit> {
  const { loadCatalog } = await import('./price-listing.js');
  const [usage, catalog] = await Promise.all([
    loadModelUsage(ctx, { ...options, since: options.since ?? (options.month || options.last ? undefined : '7d'), bucket: 'day', all: true }) as Promise<ModelUsageByPeriod>,
    loadCatalog(ctx, {}, { whole: false }),
  ]);
  const prices = new Map(catalog.rows.map((row) => [row.name, row]));
  const rows = usage.periods.flatMap((period) => auditPeriod(period.start, period.found.records, prices, options.tolerance));
  const calls = await auditCalls(ctx, usage.window, prices, options.tolerance);
  const audit = { window: usage.window, offset: usage.grid.offset, scope: usage.scope, pricingVersion: catalog.pricingVersion, tolerance: options.tolerance, rows, calls };
  return { ...audit, unexplained: unexplained(audit) };
}

function auditPeriod(day: number, records: JsonObject[], prices: Map<string, PriceRow>, tolerance: Tolerance): AuditRow[] {
  if (records.length === 0) return [];
  const fields = spendFieldsOf(records);
  if (!fields) throw new ServiceError('the usage by model names no model and amount tally can read, so its charges cannot be audited');
  const classes = classFields(records);
  return [...usagePerModel(records, fields)].map(([model, usage]) => {
    // A charge any record leaves unreadable makes the day's charge unknown: never 0, never a verdict.
    const charged = usage.amount ?? null;
    const cached = classes.cache_read === undefined ? null : classTotals(records.filter((r) => String(r[fields.model] ?? '') === model), classes).cache_read;
    const expected = expectedCharge({ ...(usage.input ? { input: usage.input } : {}), ...(usage.output ? { output: usage.output } : {}), ...(usage.calls ? { calls: usage.calls } : {}), ...(cached ? { cacheRead: cached } : {}) }, prices.get(model), model);
    if (expected.basis === 'unknown' || charged === null) return { day, model, charged, expected, verdict: 'unknown' };
    const settled = settle(charged, expected, tolerance);
    return { day, model, charged, expected: { basis: expected.basis, amount: settled.amount }, verdict: settled.verdict };
  });
}

/** Each call of the log against the prices; a gateway without a log, or one whose entries lack the fields, is said, never audited clean. */
async function auditCalls(ctx: Context, window: UsageWindow, prices: Map<string, PriceRow>, tolerance: Tolerance): Promise<CallAudit> {
  let found;
  try {
    found = await fetchAllPages(ctx, await ctx.client(), LOGS_PATH, { start: String(window.start), end: String(window.end) }, { all: true, maxPages: 1000, noun: 'log entries', keepPartial: true });
  } catch (error) {
    if (error instanceof ServiceError && [404, 405, 410, 501].includes(error.status ?? 0)) return { read: 0, complete: false, priced: 0, findings: [], unread: 'the gateway has no per-call log' };
    throw error;
  }
  const records = found.records;
  const fields: CallFields = callFields(records);
  const tokens = classFields(records);
  const cacheField = tokens.cache_read;
  const callsName = callsField(records);
  const modelName = [...new Set(records.flatMap((r) => Object.keys(r)))].find((n) => MODEL_FIELD.test(n));
  const statusName = [...new Set(records.flatMap((r) => Object.keys(r)))].find((n) => /^(status|state|result|success|ok)$/i.test(n));
  const base = { read: records.length, complete: !found.stopped };
  if (records.length > 0 && (fields.cost === undefined || modelName === undefined)) {
    return { ...base, priced: 0, findings: [], unread: `the log's entries name no ${fields.cost === undefined ? 'cost' : 'model'} tally can read` };
  }
  const whole = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? new Decimal(value) : typeof value === 'string' && /^\d{1,20}$/.test(value) ? new Decimal(value) : undefined);
  const findings: CallFinding[] = [];
  let priced = 0;
  for (const entry of records) {
    const at = fields.time === undefined ? undefined : timeSeconds(entry[fields.time]);
    if (at !== undefined && (at < window.start || at >= window.end)) continue;
    const cost = callCost(entry, fields);
    if (cost === undefined) continue;
    const charged = new Decimal(cost);
    const model = String(entry[modelName!] ?? '');
    const input = tokens.input ? whole(entry[tokens.input]) : undefined;
    const output = tokens.output ? whole(entry[tokens.output]) : undefined;
    const cachedText = cacheField === undefined ? undefined : wholeText(entry[cacheField]);
    const counted = { ...(input ? { input } : {}), ...(output ? { output } : {}), ...(cachedText ? { cacheRead: new Decimal(cachedText) } : {}), calls: callsName ? (whole(entry[callsName]) ?? new Decimal(1)) : new Decimal(1) };
    const expected = expectedCharge(counted, prices.get(model), model);
    const id = fields.id === undefined ? null : String(entry[fields.id]);
    const finding = (kind: CallFindingKind) => findings.push({ kind, at: at ?? null, id, model, charged, expected: expected.basis === 'unknown' ? null : expected.amount });
    if (statusName !== undefined && failed(entry[statusName]) && charged.gt(0)) {
      finding('failed_charged');
      continue;
    }
    if (expected.basis === 'unknown') continue;
    priced++;
    if (charged.isZero() && expected.amount.gt(0)) finding('not_charged');
    else {
      const { verdict } = settle(charged, expected, tolerance);
      if (verdict !== 'match') finding(verdict);
    }
  }
  return { ...base, priced, findings };
}

/** Whether a log's status says the call failed: a word of failure, or false. */
function failed(value: unknown): boolean {
  if (value === false) return true;
  return typeof value === 'string' && /fail|error|timeout|cancel/i.test(value);
}

/**
 * How many charges are not explained: each call charged above the prices or charged though it
 * failed, and each model's day above the prices that no such call of that day explains (where the
 * log was not read, every such day). A call and its day are one charge, counted once.
 */
export function unexplained(audit: Pick<LoadedAudit, 'rows' | 'calls' | 'offset'>): number {
  const calls = audit.calls.findings.filter((f) => f.kind === 'above' || f.kind === 'failed_charged');
  const explained = new Set(calls.flatMap((f) => (f.at === null ? [] : [`${bucketStart(f.at, 'day', audit.offset)}|${f.model}`])));
  return calls.length + audit.rows.filter((r) => r.verdict === 'above' && !explained.has(`${r.day}|${r.model}`)).length;
}

