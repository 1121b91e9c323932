// The usage time series shared by `usage`, `check --max-spend`, `forecast` and `status`: ask
// for the window (split into parts of at most 92 days), learn the buckets' shape and day grid
// from what came back, fill the gaps, and for weeks and months add the days up.
import type { Context } from '../context.js';
import { ServiceError } from '../errors.js';
import { type CacheState, type UsagePage, fetchUsage } from '../api/usage.js';
import type { HttpClient } from '../api/http.js';
import { type BucketShape, MalformedUsage, checkTotals, discoverShape, distinctBuckets, fillMissingBuckets, inferGridOffset } from '../domain/buckets.js';
import { type JsonObject, newRecord } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import { isDecimalString } from '../domain/decimal-text.js';
import type { Scope } from '../domain/records.js';
import { type Zone, fixedZone, isoInZone } from '../domain/zone.js';
import { BUCKET_SECONDS, type BucketSize, MAX_WINDOW_SECONDS, type UsageWindow, alignedByService, namesGridDays, periodsOf, parseBucket, resolveWindow, splitWindow, ended } from '../domain/window.js';
import { type DayGrid, type TimeSettings, type WindowOptions, LEARNED_GRID, rememberInferredGrid, timeSettings } from './day-grid.js';
import { windowJson } from '../domain/window.js';
import { gridMismatch } from './day-grid.js';
import { dayPage } from './day-pages.js';

export interface UsageSeries {
  bucket: BucketSize;
  /** The window covered, aligned to the bucket grid. */
  window: UsageWindow;
  /** The gateway's day grid and where tally learned it. */
  dayGrid: DayGrid;
  /** The zone bucket labels are in: the day grid's for days, weeks and months; the display zone for hours. */
  labelZone: Zone;
  shape: BucketShape | undefined;
  /** Complete and ascending; the service's buckets unchanged. */
  buckets: JsonObject[];
  /** The grid point (period start) each bucket stands for, parallel to `buckets`. */
  slots: number[];
  /** How many buckets were filled in (weeks and months: periods without a single call). */
  filled: number;
  /** Weeks or months cut to a calendar window (their starts): they hold only the window's days. */
  partial?: number[];
  /** The field names came from a wider window (this one had no calls at all). */
  shapeFromWiderWindow: boolean;
  totals: JsonObject;
  cache: CacheState;
  requests: number;
  /** Whose usage this is, when every part says the same (the account's or the key's). */
  scope: Scope | undefined;
  /** When it was read (Unix seconds): whether its last bucket has ended is said of this moment. */
  readAt?: number;
}

export interface SeriesRequest extends WindowOptions {
  bucket?: string;
}

export async function loadUsageSeries(ctx: Context, options: SeriesRequest): Promise<UsageSeries> {
  return loadOnGrid(ctx, options, await timeSettings(ctx, options));
}

/** The series on a grid already known (a figure that asks for several windows learns it once). */
export async function loadOnGrid(ctx: Context, options: SeriesRequest, time: TimeSettings): Promise<UsageSeries> {
  const bucket = parseBucket(options.bucket ?? 'day');
  const client = await ctx.client();
  const now = Math.floor(ctx.now() / 1000);
  // Weeks and months are whole periods of the day grid, and a date alone names one of its days:
  // the grid must be known before asking (learned with one request the first time).
  const needsGrid = bucket === 'week' || bucket === 'month' || namesGridDays(options);
  // A window that is wrong on any grid (a bad date, an empty window) is said before any request.
  if (needsGrid && !time.known) resolveWindow({ ...options, bucket, now, zone: time.zone, dayOffset: 0 });
  const known = needsGrid ? await knownDayGrid(ctx, time) : time.known;
  const requested = resolveWindow({ ...options, bucket, now, zone: time.zone, dayOffset: known?.offset });
  const serviceBucket = bucket === 'hour' ? 'hour' : 'day';
  const parts = splitWindow(requested);
  // Days already fetched in this run are cut from what is held (see day-pages.ts).
  const ask = (part: UsageWindow) => (serviceBucket === 'day' ? dayPage(client, part) : fetchUsage(client, serviceBucket, part));
  // The parts are independent: they go out together (the pool sends at most 4 at a time).
  let done = 0;
  const pages: UsagePage[] = await Promise.all(
    parts.map(async (part) => {
      const page = await ask(part);
      if (parts.length > 1) ctx.progress(`usage: ${++done} of ${parts.length} parts of the window fetched…`);
      return page;
    }),
  ).finally(() => ctx.progress(undefined));

  const received = pages.flatMap((page) => page.buckets);
  // The field names are learned from the buckets; a window without calls has none, so ask once
  // for the longest window ending at the same point, only to learn how buckets are written.
  const sample = received.length > 0 || requested.end - requested.start >= MAX_WINDOW_SECONDS
    ? received
    : (await ask({ start: requested.end - MAX_WINDOW_SECONDS, end: requested.end })).buckets;
  const shape = readable(client, () => discoverShape(sample));
  const inferred = shape && serviceBucket === 'day' ? inferGridOffset(sample, shape, 86_400) : undefined;
  // A grid named by --utc-offset or the profile that the gateway's days are not on: the buckets
  // say which grid they are on, and are labelled by it (asked again on it), with a word.
  const claimed = known && (known.source === 'flag' || known.source === 'profile') ? known : undefined;
  if (claimed && inferred !== undefined && (((inferred - claimed.offset) % 86_400) + 86_400) % 86_400 !== 0) {
    const grid: DayGrid = { offset: inferred, source: 'inferred', claimed };
    ctx.warn(gridMismatch(grid));
    return loadOnGrid(ctx, options, { zone: time.zone, known: grid });
  }
  const dayGrid: DayGrid =
    known && known.source !== 'learned' && (known.source !== 'inferred' || known.claimed) ? known
    : inferred !== undefined ? { offset: inferred, source: 'inferred' }
    : known ?? { offset: 0, source: 'assumed' };
  if (dayGrid.source === 'inferred') await rememberInferredGrid(ctx, time, dayGrid.offset);
  const window = requested.final ? requested : alignedByService(requested, 'day', dayGrid.offset);
  const size = BUCKET_SECONDS[serviceBucket];
  // Hours are whole UTC hours; days follow the day grid.
  const grid = { size, offset: serviceBucket === 'hour' ? 0 : dayGrid.offset };
  const days = fillMissingBuckets(readable(client, () => distinctBuckets(received, shape)), shape, window, grid);
  const totals = pages.length === 1 && pages[0]!.totals ? pages[0]!.totals : await addTotals(pages, shape);
  readable(client, () => checkTotals(totals, shape));
  const series = {
    bucket,
    window,
    dayGrid,
    labelZone: bucket === 'hour' ? time.zone : fixedZone(dayGrid.offset),
    shape,
    buckets: days.buckets,
    slots: days.slots,
    filled: days.filled,
    shapeFromWiderWindow: sample !== received && shape !== undefined,
    totals,
    cache: combineCache(pages.map((page) => page.cache)),
    requests: parts.length,
    scope: pages.every((page) => page.scope === pages[0]?.scope) ? pages[0]?.scope : undefined,
    readAt: now,
  };
  if (bucket === 'hour' || bucket === 'day' || !shape) return series;
  // Weeks and months: add the days up, period by period.
  const { rollUp } = await import('../domain/rollup.js');
  const real = new Set<number>();
  const sent = new Set(received);
  days.buckets.forEach((b, i) => sent.has(b) && real.add(i));
  const periods = periodsOf(window, bucket, dayGrid.offset);
  const rolled = rollUp(days, real, shape, periods);
  return { ...series, buckets: rolled.buckets, slots: rolled.slots, filled: rolled.empty, partial: periods.filter((p) => p.partial).map((p) => p.start) };
}

/** Runs a reading of the service's buckets; a MalformedUsage becomes "unexpected response from HOST: ...". */
function readable<T>(client: HttpClient, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof MalformedUsage) throw client.unexpected(error.message);
    throw error;
  }
}

/**
 * The day grid from one request over the last 92 days, for what must know it before asking
 * (weeks, months, spend per model per period); UTC when there is no usage to tell.
 */
export async function probeDayGrid(ctx: Context, client: HttpClient, time: TimeSettings, now: number): Promise<DayGrid> {
  const page = await dayPage(client, recentDays(client, now));
  const shape = readable(client, () => discoverShape(page.buckets));
  const offset = shape ? inferGridOffset(page.buckets, shape, 86_400) : undefined;
  if (offset === undefined) return { offset: 0, source: 'assumed' };
  await rememberInferredGrid(ctx, time, offset);
  return { offset, source: 'inferred' };
}

const recentByClient = new WeakMap<HttpClient, UsageWindow>();

/**
 * The last 92 days and today: what the day grid is learned from, and what a report's windows lie
 * in. One window per client (one computation): asked again a second later, it is the same
 * request, so the grid's probe serves the report's days instead of a second request for them.
 */
export function recentDays(client: HttpClient, now: number): UsageWindow {
  const held = recentByClient.get(client);
  // Within ten minutes of its asking (a day that ends between is then asked for anew: dayPage cuts only whole days it holds).
  if (held && held.end - 86_400 <= now && now < held.end - 86_400 + 600) return held;
  const end = now + 86_400;
  const window = { start: end - MAX_WINDOW_SECONDS, end };
  recentByClient.set(client, window);
  return window;
}

/** The day grid known before any request, or learned with one (see probeDayGrid): learned once a computation, whoever asks. */
export async function knownDayGrid(ctx: Context, time: TimeSettings): Promise<DayGrid> {
  return time.known ?? ctx.figure(LEARNED_GRID, async () => probeDayGrid(ctx, await ctx.client(), time, Math.floor(ctx.now() / 1000)));
}

/** A window's values checked on a provisional grid (no request): a usage error for any that is wrong. */
export async function checkWindow(ctx: Context, request: WindowOptions, bucket: BucketSize, check?: (provisional: UsageWindow, now: number, zone: TimeSettings['zone']) => void): Promise<{ time: TimeSettings; now: number }> {
  const time = await timeSettings(ctx, request);
  const now = Math.floor(ctx.now() / 1000);
  const provisional = resolveWindow({ ...request, now, zone: time.zone, bucket: bucket === 'week' || bucket === 'month' ? 'day' : bucket, dayOffset: time.known?.offset ?? 0 });
  check?.({ start: provisional.start, end: provisional.end }, now, time.zone);
  return { time, now };
}

/**
 * The window a request names, on the gateway's day grid: the one rule every figure sets its
 * window up by. Every value is checked first on a provisional grid (with `check`, whatever else
 * the figure derives from it), so bad input is refused before the gateway is asked anything
 * (learning the grid may ask); then the grid is known (or learned) and the window resolved on it.
 *
 * While the grid is being learned (a first run), `ahead` is handed the window as it stands on
 * whole days of UTC, the grid most gateways keep: a figure may start the requests that window
 * needs (at most a round's worth, remembered by window), so that they share the learning round
 * instead of waiting a round behind it. Where the grid proves to be another, they are not used.
 */
export async function windowOnGrid(
  ctx: Context,
  request: WindowOptions,
  bucket: BucketSize,
  check?: (provisional: UsageWindow, now: number, zone: TimeSettings['zone']) => void,
  ahead?: (guess: { window: UsageWindow; dayOffset: number; now: number; zone: TimeSettings['zone'] }) => void,
): Promise<{ window: UsageWindow; grid: DayGrid; time: TimeSettings; now: number }> {
  const { time, now } = await checkWindow(ctx, request, bucket, check);
  const learning = time.known ? undefined : knownDayGrid(ctx, time);
  if (learning && ahead) {
    startAhead(learning); // ahead may refuse the window: the learning round must not fail unseen then
    const guess = resolveWindow({ ...request, now, zone: time.zone, bucket, dayOffset: 0 });
    ahead({ window: { start: guess.start, end: guess.end }, dayOffset: 0, now, zone: time.zone });
  }
  const grid = time.known ?? (await learning!);
  const resolved = resolveWindow({ ...request, now, zone: time.zone, bucket, dayOffset: grid.offset });
  return { window: { start: resolved.start, end: resolved.end }, grid, time, now };
}

/**
 * A window of exact instants (the per-call log's): what was asked, exactly; its bounds on the
 * gateway's day grid only where they name days (a date, a month, the last week), the grid then
 * known or learned first. A window wrong on any grid is refused before any request.
 */
export async function instantWindow(ctx: Context, request: WindowOptions): Promise<{ window: UsageWindow; time: TimeSettings }> {
  const time = await timeSettings(ctx, request);
  const now = Math.floor(ctx.now() / 1000);
  const on = (dayOffset: number) => {
    const { start, end } = resolveWindow({ ...request, now, zone: time.zone, bucket: undefined, dayOffset });
    return { start, end };
  };
  const guess = on(time.known?.offset ?? 0);
  const grid = time.known ?? (namesGridDays(request) ? await knownDayGrid(ctx, time) : undefined);
  return { window: grid === undefined ? guess : on(grid.offset), time };
}

/** Starts a request whose answer may never be asked for: a failure is the asker's to see, never an unhandled one. */
export function startAhead<T>(answer: Promise<T>): void {
  answer.catch(() => undefined);
}

/** The totals of some buckets' metrics, added exactly (decimal.js loads only here). */
export async function totalsOf(buckets: JsonObject[], shape: BucketShape | undefined): Promise<JsonObject> {
  const { mergeTotals } = await import('../domain/totals.js');
  return mergeTotals(buckets.map((b) => metricsOf(b, shape)));
}

/** Totals of several parts, or of buckets when the service sent none (decimal.js loads only here). */
async function addTotals(pages: UsagePage[], shape: BucketShape | undefined): Promise<JsonObject> {
  const { mergeTotals } = await import('../domain/totals.js');
  return mergeTotals(pages.map((page) => page.totals ?? mergeTotals(page.buckets.map((b) => metricsOf(b, shape)))));
}

/** A bucket's metrics only (for totals the service did not send). */
function metricsOf(bucket: JsonObject, shape: BucketShape | undefined): JsonObject {
  const metrics = newRecord();
  for (const metric of shape?.metrics ?? []) if (bucket[metric.name] !== undefined) metrics[metric.name] = bucket[metric.name]!;
  return metrics;
}

/** MISS if any part missed, HIT if all hit, null when the service did not say. */
export function combineCache(values: CacheState[]): CacheState {
  if (values.includes('MISS')) return 'MISS';
  if (values.length > 0 && values.every((v) => v === 'HIT')) return 'HIT';
  if (values.includes('unrecognised')) return 'unrecognised';
  return null;
}

/** The usage fields --metric may name (every metric the buckets hold, money or not; the totals' names where no bucket told), for its errors. */
export function metricNames(series: UsageSeries): string[] {
  return series.shape?.metrics.map((m) => m.name) ?? Object.keys(series.totals);
}

/** The usage document: the window, every bucket, the totals and the cache state. */
export function usageJson(series: UsageSeries) {
  return {
    bucket: series.bucket,
    ...windowJson(series.window, series.labelZone),
    buckets: series.buckets,
    totals: series.totals,
    cache: series.cache === 'unrecognised' ? null : series.cache,
    // Whose usage the totals are (account or key), as the gateway states it; null when it does not say.
    scope: series.scope ?? null,
    // Weeks or months cut to a calendar window (their starts, within it).
    ...(series.partial?.length ? { partial_buckets: series.partial } : {}),
    // Whether the window has ended; if not, the bucket still running (its figures will grow).
    ...(series.readAt === undefined ? {} : runningJson(series, series.readAt)),
  };
}

/** `complete`, and the start of the bucket still running when the window has not ended. */
function runningJson(series: UsageSeries, now: number): { complete: boolean; running_from?: number; running_from_iso?: string } {
  if (ended(series.window, now)) return { complete: true };
  const running = series.slots.filter((slot) => slot <= now).at(-1);
  return { complete: false, ...(running === undefined ? {} : { running_from: running, running_from_iso: isoInZone(running, series.labelZone) }) };
}

// The spend of a series: the one reader of money out of a series, in total and bucket by bucket.

/** The spend of a series: its money field's total (--metric, else the one discovered); zero when there is no usage at all, never when the total is unreadable. */
export function seriesSpend(series: UsageSeries, metric: string | undefined): Decimal {
  if (metric === undefined) return new Decimal(0);
  const value = series.totals[metric];
  if (value === undefined || value === null) {
    if (series.filled === series.buckets.length) return new Decimal(0);
    throw new ServiceError(`usage totals carry no "${metric}" although the buckets do`);
  }
  if (!isDecimalString(value)) throw new ServiceError(`usage totals."${metric}" is not a decimal amount`);
  return new Decimal(value);
}

/**
 * The money of each bucket, as the gateway wrote it (a decimal string, so a Prometheus sample or
 * a sum keeps every digit), or undefined where the field holds no readable amount (a day without
 * usage, a filled hole).
 */
export function bucketMoney(buckets: readonly JsonObject[], metric: string | undefined): (string | undefined)[] {
  return buckets.map((bucket) => {
    const value = metric === undefined ? undefined : bucket[metric];
    return isDecimalString(value) ? value : undefined;
  });
}

/** What each bucket spent, by the same reading: a bucket without a decimal amount spent nothing (no field at all, nothing). */
export function bucketAmounts(buckets: readonly JsonObject[], metric: string | undefined): Decimal[] {
  return bucketMoney(buckets, metric).map((amount) => new Decimal(amount ?? 0));
}
