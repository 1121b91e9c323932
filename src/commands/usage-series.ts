// The usage time series shared by `tally usage` and `tally check --max-spend`: ask for the
// window (split into parts of at most 92 days), learn the buckets' shape and day grid from
// what came back, and fill the gaps.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchUsage } from '../api/usage.js';
import { type BucketShape, discoverShape, fillMissingBuckets, inferGridOffset } from '../domain/buckets.js';
import type { JsonObject } from '../domain/json.js';
import { parseUtcOffset } from '../domain/offset.js';
import {
  BUCKET_SECONDS,
  type BucketGrid,
  MAX_WINDOW_SECONDS,
  type BucketSize,
  type UsageWindow,
  alignDown,
  parseBucket,
  requestWindow,
  splitWindow,
  systemOffset,
} from '../domain/time.js';

export interface WindowOptions {
  since?: string;
  until?: string;
  utcOffset?: string;
}

/** --since / --until / --utc-offset, shared by every command that takes a window. */
export function addWindowOptions(command: Command): Command {
  return command
    .option('--since <time>', 'start: ISO date or date-time, Unix seconds, now, or a span back (90m, 36h, 7d, 2w)')
    .option('--until <time>', 'end (exclusive), same forms; default: the end of the current bucket')
    .option('--utc-offset <+HH:MM>', "the gateway's day grid offset (default: inferred from the data, else UTC); hours are labelled in it");
}

export interface UsageSeries {
  bucket: BucketSize;
  window: UsageWindow;
  grid: BucketGrid;
  /** How the grid offset was decided. */
  gridSource: 'flag' | 'inferred' | 'utc';
  /** Seconds east of UTC for wall-clock labels: the day grid's zone, or for hours --utc-offset or this machine's. */
  labelOffset: number;
  shape: BucketShape | undefined;
  /** Complete and ascending; the service's buckets unchanged. */
  buckets: JsonObject[];
  /** How many buckets were filled in. */
  filled: number;
  /** The field names came from a wider window (this one had no calls at all). */
  shapeFromWiderWindow: boolean;
  totals: JsonObject;
  cache: string | null;
  requests: number;
}

export interface SeriesRequest extends WindowOptions {
  bucket?: string;
}

export async function loadUsageSeries(ctx: Context, options: SeriesRequest): Promise<UsageSeries> {
  const bucket = parseBucket(options.bucket ?? 'day');
  const size = BUCKET_SECONDS[bucket];
  const flagOffset = options.utcOffset === undefined ? undefined : parseUtcOffset(options.utcOffset) * 60;
  const now = Math.floor(ctx.now() / 1000);
  // Hours are whole UTC hours (the service's fast path answers only those); --utc-offset is
  // the day grid's. Without a known day grid, ask on whole hours and let the service align
  // days to its grid.
  const dayOffset = bucket === 'day' ? flagOffset : undefined;
  const requestGrid: BucketGrid = dayOffset === undefined ? { size: 3600, offset: 0 } : { size, offset: dayOffset };
  const requested = requestWindow({
    bucket,
    since: options.since,
    until: options.until,
    now,
    localOffset: flagOffset === undefined ? systemOffset : () => flagOffset,
    grid: requestGrid,
  });
  const parts = splitWindow(requested);
  const client = await ctx.client();
  const pages = [];
  for (const [index, part] of parts.entries()) {
    if (parts.length > 1 && ctx.io.stderrIsTTY) {
      ctx.io.err(`\rfetching part ${index + 1} of ${parts.length}…`);
    }
    pages.push(await fetchUsage(client, bucket, part));
  }
  if (parts.length > 1 && ctx.io.stderrIsTTY) ctx.io.err('\r\u001b[K');

  const received = pages.flatMap((page) => page.buckets);
  // The field names are learned from the buckets; a window without calls has none, so ask once
  // for the longest window ending at the same point, only to learn how buckets are written.
  const sample = received.length > 0 || requested.end - requested.start >= MAX_WINDOW_SECONDS
    ? received
    : (await fetchUsage(client, bucket, { start: requested.end - MAX_WINDOW_SECONDS, end: requested.end })).buckets;
  const shape = discoverShape(sample);
  const inferred = shape ? inferGridOffset(sample, shape, size) : undefined;
  const offset = dayOffset ?? inferred ?? 0;
  const grid: BucketGrid = { size, offset: ((offset % size) + size) % size };
  const window = { start: alignDown(requested.start, grid), end: alignDown(requested.end, grid) };
  const buckets = fillMissingBuckets(received, shape, window, grid);
  const totals = pages.length === 1 && pages[0]!.totals ? pages[0]!.totals : await addTotals(pages, shape);
  return {
    bucket,
    window,
    grid: { size, offset },
    gridSource: dayOffset !== undefined ? 'flag' : inferred !== undefined ? 'inferred' : 'utc',
    labelOffset: bucket === 'day' ? offset : flagOffset ?? systemOffset(now),
    shape,
    buckets,
    filled: buckets.length - received.length,
    shapeFromWiderWindow: sample !== received && shape !== undefined,
    totals,
    cache: combineCache(pages.map((page) => page.cache)),
    requests: parts.length,
  };
}

/** Totals of several parts, or of buckets when the service sent none (decimal.js loads only here). */
async function addTotals(pages: { buckets: JsonObject[]; totals: JsonObject | undefined }[], shape: BucketShape | undefined): Promise<JsonObject> {
  const { mergeTotals } = await import('../domain/totals.js');
  return mergeTotals(pages.map((page) => page.totals ?? mergeTotals(page.buckets.map((b) => metricsOf(b, shape)))));
}

/** A bucket's metrics only (for totals the service did not send). */
function metricsOf(bucket: JsonObject, shape: BucketShape | undefined): JsonObject {
  const metrics: JsonObject = {};
  for (const metric of shape?.metrics ?? []) if (bucket[metric.name] !== undefined) metrics[metric.name] = bucket[metric.name]!;
  return metrics;
}

/** MISS if any part missed, HIT if all hit, null when the service did not say. */
export function combineCache(values: (string | null)[]): string | null {
  if (values.includes('MISS')) return 'MISS';
  if (values.length > 0 && values.every((v) => v === 'HIT')) return 'HIT';
  return values.find((v) => v !== null) ?? null;
}
