// Record lists whose parameters and fields the service does not publish (`usage --by model`,
// `logs`): the window goes as start/end, every --param is passed through, columns are discovered.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { ServiceError, UsageError } from '../errors.js';
import { fetchRecordPage } from '../api/usage.js';
import { type JsonObject, type JsonValue, isJsonNumber, isJsonObject, jsonText, numberText } from '../domain/json.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { describeColumns } from '../domain/records.js';
import { parseUtcOffset } from '../domain/offset.js';
import { parseTimeSpec, systemOffset } from '../domain/time.js';
import { emit, emitNdjson } from '../output/emit.js';

/** Pages followed by --all before tally stops and says so. */
const MAX_PAGES = 1000;

export function addRecordOptions(command: Command): Command {
  return command
    .option('--param <key=value>', 'pass a query parameter through (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .option('--all', 'follow the continuation cursor through every page');
}

export interface RecordRequest {
  path: string;
  since?: string;
  until?: string;
  utcOffset?: string;
  param?: string[];
  all?: boolean;
  ndjson: boolean;
  /** Default start, back from now (e.g. 7d). */
  defaultSpan: string;
}

export function parseParams(params: string[] = []): Record<string, string> {
  const query: Record<string, string> = {};
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param "${param}" is not of the form key=value`);
    query[param.slice(0, eq)] = param.slice(eq + 1);
  }
  return query;
}

export async function runRecordCommand(ctx: Context, request: RecordRequest): Promise<void> {
  const now = Math.floor(ctx.now() / 1000);
  const localOffset = request.utcOffset === undefined ? systemOffset : () => parseUtcOffset(request.utcOffset!) * 60;
  const start = parseTimeSpec(request.since ?? request.defaultSpan, now, localOffset, '--since');
  const end = request.until === undefined ? now : parseTimeSpec(request.until, now, localOffset, '--until');
  if (start >= end) throw new UsageError(`--since (${request.since ?? request.defaultSpan}) must be before --until (${request.until ?? 'now'})`);
  const query = { start: String(start), end: String(end), ...parseParams(request.param) };
  const client = await ctx.client();

  const records: JsonObject[] = [];
  let first: { body: JsonValue; recordsKey: string | undefined; continuationField: string | undefined } | undefined;
  let path = request.path;
  let pageQuery: Record<string, string> = query;
  let pages = 0;
  const seen = new Set<string>();
  let more: string | undefined;
  for (;;) {
    const page = await fetchRecordPage(client, path, pageQuery);
    pages++;
    first ??= { body: page.body, recordsKey: page.recordsKey, continuationField: page.next?.field };
    if (request.ndjson) for (const record of page.records) emitNdjson(ctx, record);
    else records.push(...page.records);
    const next = page.next;
    if (!next) break;
    const token = next.kind === 'url' ? next.url : next.value;
    if (!request.all) {
      more = next.kind === 'url' ? 'more records: add --all to follow every page' : `more records: add --all, or --param ${next.name}=${token}`;
      break;
    }
    if (seen.has(token)) throw new ServiceError(`${client.host} returned the same continuation (${next.field}) twice; stopped after ${pages} pages`);
    seen.add(token);
    if (pages >= MAX_PAGES) {
      more = `stopped after ${MAX_PAGES} pages; narrow the window to see the rest`;
      break;
    }
    if (next.kind === 'url') {
      path = next.url;
      pageQuery = {};
    } else {
      pageQuery = { ...query, [next.name]: next.value };
    }
  }
  if (more) ctx.io.err(`${more}\n`);
  if (request.ndjson) return;

  const extra: Record<string, JsonValue> = {};
  if (isJsonObject(first?.body)) {
    for (const [key, value] of Object.entries(first.body)) {
      if (key !== first.recordsKey && key !== first.continuationField) extra[key] = value;
    }
  }
  await emit(ctx, {
    json: { ...extra, start, end, records, ...(pages > 1 ? { pages } : {}) },
    csv: () => recordsCsv(records),
    human: () => renderRecords(records, ctx),
  });
}

function recordsCsv(records: JsonObject[]) {
  const header = describeColumns(records).map((c) => c.name);
  return { header, rows: records.map((r) => header.map((name) => jsonText(r[name]))) };
}

async function renderRecords(records: JsonObject[], ctx: Context): Promise<string> {
  const [{ renderTable }, { yuan }, { styleFor }] = await Promise.all([
    import('../output/table.js'),
    import('../output/money.js'),
    import('../output/style.js'),
  ]);
  const style = await styleFor(ctx);
  const columns = describeColumns(records);
  const offset = -new Date().getTimezoneOffset() * 60;
  const cell = (kind: string, value: JsonValue | undefined): string => {
    if (value === null || value === undefined) return '';
    if (kind === 'money' && isDecimalString(value)) return yuan(value);
    if (kind === 'time') {
      const n = isJsonNumber(value) ? Number(numberText(value)) : Date.parse(String(value)) / 1000;
      const seconds = n > 1e11 ? n / 1000 : n;
      return new Date((seconds + offset) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    }
    return jsonText(value);
  };
  const table = await renderTable(
    {
      columns: columns.map((c, i) => ({
        header: c.kind === 'money' ? `${c.name} (¥)` : c.name,
        align: c.kind === 'money' || c.kind === 'number' ? ('right' as const) : ('left' as const),
        dropOrder: i < 2 ? 0 : columns.length - i,
      })),
      rows: records.map((r) => columns.map((c) => cell(c.kind, r[c.name]))),
    },
    style,
  );
  const note = records.length === 0 ? 'no records in this window' : `${records.length} record${records.length === 1 ? '' : 's'}`;
  return `${table}${style.paint.dim(note)}\n`;
}
