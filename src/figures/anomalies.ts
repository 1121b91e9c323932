// What a person should look at in a window, each with its evidence (`tally anomalies`, `check
// --anomalies`, the status line): spikes in the spend series (domain/anomalies.ts, over a trailing
// baseline fetched with the window), models that started or stopped costing money (the window
// against the one before it), calls with tokens and no cost, and spend rising period over period.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { DEFAULT_SPIKE_RULE, findGrowth, findSpikes } from '../domain/anomalies.js';
import { isDecimalString } from '../domain/decimal-text.js';
import { type JsonObject } from '../domain/json.js';
import { Decimal } from '../domain/money.js';
import type { Scope } from '../domain/records.js';
import { comparedWindow } from '../domain/comparison.js';
import { BUCKET_SECONDS, type UsageWindow, periodsOf, ended } from '../domain/window.js';
import { type Zone, fixedZone } from '../domain/zone.js';
import { type DayGrid, type WindowOptions } from './day-grid.js';
import { spendMetric } from './forecast.js';
import { type ModelDay, askModelDaysAhead, modelDaysIn, rememberModelDays, spendOnDay, tokensOf } from './model-days.js';
import { type ModelSpendOver, spendPerModel } from './usage-by-model.js';
import { usagePerModel } from '../domain/repricing.js';
import { bucketAmounts, loadOnGrid, startAhead, windowOnGrid } from './usage-series.js';
import { MAX_CONNECTIONS_PER_ORIGIN } from '../api/transport.js';

export type FindingKind = 'spike' | 'new_model' | 'stopped_model' | 'zero_cost' | 'growth';

export interface Finding {
  kind: FindingKind;
  /**
   * When it happened, Unix seconds: the spike's bucket, the day a model first (new, zero cost) or
   * last (stopped) cost money, the first period of growth. Never the window that found it: the
   * same finding found tomorrow in a moved window has the same date (and the same identity).
   */
  start: number;
  end: number;
  /** The bucket had not ended: a spike judged as it stands so far. */
  running?: boolean;
  /** A spike: the models that made it, largest first, with what each spent in its bucket. */
  models?: { model: string; amount: Decimal }[];
  model?: string;
  /** What was spent: the bucket, the model in the window, the last period. */
  amount: Decimal;
  /** What it is set against: the trailing median, the previous window, the first period; null where there is none. */
  baseline: Decimal | null;
  ratio: Decimal | null;
  /** zero_cost: the tokens counted without a cost. */
  tokens?: string;
  /** growth: the periods' amounts and the smallest step in percent. */
  periods?: Decimal[];
  smallestStep?: Decimal;
}

export interface AnomalyRule {
  bucket: 'day' | 'hour';
  /** Buckets in the trailing baseline: days, or for hours the same hour of that many days before. */
  baseline: number;
  deviations: number;
  minRatio: number;
  minAmount: Decimal;
  /** Steady growth: over this many periods, each up by at least growthStep percent. */
  growthPeriods: number;
  growthStep: Decimal;
}

export const DEFAULT_RULE = {
  day: { baseline: 14, minAmount: '5' },
  hour: { baseline: 7, minAmount: '2' },
  growthPeriods: 4,
  growthStep: '10',
} as const;

/** The rule with every default for days or hours. */
export function defaultRule(bucket: 'day' | 'hour'): AnomalyRule {
  return {
    bucket,
    baseline: DEFAULT_RULE[bucket].baseline,
    deviations: DEFAULT_SPIKE_RULE.deviations,
    minRatio: DEFAULT_SPIKE_RULE.minRatio,
    minAmount: new Decimal(DEFAULT_RULE[bucket].minAmount),
    growthPeriods: DEFAULT_RULE.growthPeriods,
    growthStep: new Decimal(DEFAULT_RULE.growthStep),
  };
}

/** What `status` and the statusline apply to today. */
export const DAY_RULE = defaultRule('day');

export interface AnomalyRequest extends WindowOptions {
  bucket?: string;
  metric?: string;
  rule?: Partial<AnomalyRule>;
  /** Spend per model over a window, when a caller asking for the same windows shares its requests (report). */
  /** The period the models are set against (the report's, by the one rule of comparedWindow); else that rule's for this window. */
  previous?: UsageWindow;
}

export interface Anomalies {
  window: UsageWindow;
  /** The window the models were set against (the same length before it). */
  previous: UsageWindow;
  grid: DayGrid;
  labelZone: Zone;
  rule: AnomalyRule;
  findings: Finding[];
  /** Whose spend the series is (the gateway's word), and the models' records. */
  seriesScope: Scope | undefined;
  modelsScope: Scope | undefined;
  /** The usage field the series' spend was read from. */
  metric: string | undefined;
}

export async function loadAnomalies(ctx: Context, request: AnomalyRequest): Promise<Anomalies> {
  const bucket = request.bucket === undefined || request.bucket === 'day' ? 'day' : request.bucket === 'hour' ? 'hour' : undefined;
  if (!bucket) throw new UsageError(`--bucket "${request.bucket}" is not day or hour (anomalies are looked for in days or hours)`);
  const rule: AnomalyRule = {
    ...defaultRule(bucket),
    ...Object.fromEntries(Object.entries(request.rule ?? {}).filter(([, v]) => v !== undefined)),
  };
  const since = request.since ?? (request.month === undefined && request.last === undefined ? '30d' : undefined);
  const spendOver = (w: UsageWindow) => spendPerModel(ctx, w);
  const previousOf = (current: UsageWindow, dayOffset: number, now: number, zone: Zone) => request.previous ?? comparedWindow({ current, spec: 'previous', month: request.month, last: request.last, dayOffset, now, zone });
  // On a first run the models of both windows are asked for while the grid is learned (used when it is UTC's days, as guessed).
  const { window, grid, time, now } = await windowOnGrid(ctx, { ...request, since }, bucket, undefined, (guess) => {
    startAhead(spendOver(guess.window));
    startAhead(spendOver(previousOf(guess.window, guess.dayOffset, guess.now, guess.zone)));
  });
  const size = BUCKET_SECONDS[bucket];
  const stride = bucket === 'hour' ? 24 : 1;
  const history = window.start - rule.baseline * size * stride;
  const previous = previousOf(window, grid.offset, now, time.zone);
  // The days not yet remembered go out with this round when they are few (today, the days settled since the last run).
  askModelDaysAhead(ctx, [window, previous], grid.offset, 3);
  const [series, current, before] = await Promise.all([
    loadOnGrid(ctx, { bucket, since: String(history), until: String(window.end) }, { zone: time.zone, known: grid }),
    spendOver(window),
    spendOver(previous),
  ]);
  const metric = spendMetric(series, request.metric);
  const values = bucketAmounts(series.buckets, metric);
  const first = series.slots.findIndex((slot) => slot >= window.start);
  const findings: Finding[] = [];
  // The bucket still running is judged as it stands (a spike by noon is news); growth counts complete buckets only.
  const complete = series.slots.map((slot) => ended({ end: slot + size }, now));
  for (const spike of findSpikes(values, { baseline: rule.baseline, deviations: rule.deviations, minRatio: rule.minRatio, minAmount: rule.minAmount, stride }, first < 0 ? values.length : first)) {
    const start = series.slots[spike.index]!;
    findings.push({ kind: 'spike', start, end: start + size, ...(start + size > now ? { running: true } : {}), amount: spike.amount, baseline: spike.baseline, ratio: spike.ratio });
  }
  const changes = modelChanges(current, before, rule.minAmount);
  const free = zeroCost(current);
  // The spikes' models are asked beside the first round of dating: together, one round's worth of
  // requests (HTTP/1.1's four connections; over HTTP/2 enough streams that most windows date in one round).
  const together = await (await ctx.client()).together();
  const dating = Math.max(1, together - findings.length);
  const spendIn = (w: UsageWindow) => (bucket === 'day' ? spendOnDay(ctx, w) : spendOver(w).then((over) => (over.incomplete ? undefined : over.spend)));
  await Promise.all([dateFindings(ctx, [...changes, ...free], window, previous, grid.offset, dating, together), ...findings.map((f) => namedModels(spendIn, f))]);
  await rememberModelDays(ctx, [window, previous], grid.offset);
  findings.push(...changes, ...free);
  const growth = steadyGrowth(values.slice(Math.max(0, first)).filter((_, i) => complete[Math.max(0, first) + i]), series.slots.slice(Math.max(0, first)), rule, size);
  if (growth) findings.push(growth);
  const order: Record<FindingKind, number> = { spike: 0, new_model: 1, stopped_model: 2, zero_cost: 3, growth: 4 };
  findings.sort((a, b) => a.start - b.start || order[a.kind] - order[b.kind] || (a.model ?? '').localeCompare(b.model ?? ''));
  return { window, previous, grid: series.dayGrid, labelZone: bucket === 'hour' ? time.zone : fixedZone(series.dayGrid.offset), rule, findings, seriesScope: series.scope, modelsScope: current.scope, metric };
}

/** A spike names the models that made it: the largest in its bucket, up to three, until they make most of it. */
async function namedModels(spendIn: (window: UsageWindow) => Promise<ReadonlyMap<string, Decimal> | undefined>, f: Finding): Promise<void> {
  const spend = await spendIn({ start: f.start, end: f.end });
  if (!spend) return;
  const ranked = [...spend.entries()].filter(([, v]) => v.isPositive() && !v.isZero()).sort((a, b) => b[1].comparedTo(a[1]));
  const total = ranked.reduce((a, [, v]) => a.plus(v), new Decimal(0));
  const named: { model: string; amount: Decimal }[] = [];
  let covered = new Decimal(0);
  for (const [model, amount] of ranked) {
    if (named.length === 3 || (named.length > 0 && covered.gte(total.mul('0.8')))) break;
    named.push({ model, amount });
    covered = covered.plus(amount);
  }
  if (named.length) f.models = named;
}

/**
 * Dates model findings by their day: from the days of models where the run has them all in one
 * round (remembered, asked ahead, or asked now: `budget` at once), else by narrowing in.
 */
async function dateFindings(ctx: Context, found: Finding[], window: UsageWindow, previous: UsageWindow, dayOffset: number, budget: number, perRound: number): Promise<void> {
  if (found.length === 0) return;
  const stopped = (f: Finding) => f.kind === 'stopped_model';
  const windows = [...(found.some((f) => !stopped(f)) ? [window] : []), ...(found.some(stopped) ? [previous] : [])];
  const days = await modelDaysIn(ctx, windows, dayOffset, budget);
  const undated = found.filter((f) => {
    const within = days?.get(`${(stopped(f) ? previous : window).start}-${(stopped(f) ? previous : window).end}`);
    const holds = (d: ModelDay) => (f.kind === 'zero_cost' ? d.tokens.has(f.model!) : d.spent.has(f.model!));
    const day = within && (stopped(f) ? within.findLast(holds) : within.find(holds));
    if (day) Object.assign(f, { start: day.start, end: day.end });
    return !day;
  });
  await datedByEvent((w) => spendPerModel(ctx, w), window, previous, dayOffset, undated, budget, perRound);
}

/**
 * Dates model findings by their event: the first day in the window a new model (or tokens at no
 * cost) appears, the last day of the period before that a stopped model cost money. Found by
 * narrowing in on the day with windows that grow from the window's start (or shrink to its end).
 * A window answers for every model, so findings whose days are still as uncertain share their
 * windows; each round asks as many windows as go out at once (`budget` the first round, beside
 * the spikes' own, `perRound` after it), given to whichever days are the most uncertain, so no
 * round waits behind another of its own.
 */
export async function datedByEvent(spendOver: (window: UsageWindow) => Promise<ModelSpendOver>, window: UsageWindow, previous: UsageWindow, dayOffset: number, found: Finding[], budget: number, perRound = MAX_CONNECTIONS_PER_ORIGIN): Promise<void> {
  const targets = found.map((f) => {
    const last = f.kind === 'stopped_model';
    const within = last ? previous : window;
    const holds = (over: ModelSpendOver) => {
      const value = f.kind === 'zero_cost' ? tokensOf(over, f.model!) : (over.spend.get(f.model!) ?? new Decimal(0));
      return value.isPositive() && !value.isZero();
    };
    const days = periodsOf(within, 'day', dayOffset);
    return { f, days, within, last, holds, lo: 0, hi: days.length - 1 };
  });
  type Target = (typeof targets)[number];
  for (let round = 0; round < 64 && targets.some((t) => t.lo < t.hi); round++) {
    // The days still open, one entry per direction and range however many findings share it.
    const open = new Map<string, { t: Target; cuts: number }>();
    for (const t of targets) if (t.lo < t.hi) open.set(`${t.last}:${t.lo}:${t.hi}`, { t, cuts: 0 });
    for (let given = 0; given < (round === 0 ? budget : perRound); given++) {
      let widest: { t: Target; cuts: number } | undefined;
      for (const range of open.values()) {
        const days = range.t.hi - range.t.lo + 1;
        if (range.cuts + 1 < days && (!widest || days / (range.cuts + 1) > (widest.t.hi - widest.t.lo + 1) / (widest.cuts + 1))) widest = range;
      }
      if (!widest) break;
      widest.cuts++;
    }
    // First: [start, day c) holds when the first day is before c. Last: [day c, end) holds when the last day is c or after.
    const asked = [...open.values()].flatMap(({ t, cuts }) => Array.from({ length: cuts }, (_, j) => ({ last: t.last, c: t.lo + Math.ceil(((j + 1) * (t.hi - t.lo + 1)) / (cuts + 1)), t })));
    const answers = await Promise.all(asked.map(async (a) => ({ ...a, over: await spendOver(a.last ? { start: a.t.days[a.c]!.start, end: a.t.within.end } : { start: a.t.within.start, end: a.t.days[a.c]!.start }) })));
    for (const t of targets) {
      for (const { last, c, over } of answers) {
        if (last !== t.last || c <= t.lo || c > t.hi) continue;
        const holds = t.holds(over);
        if (t.last) {
          if (holds) t.lo = c;
          else t.hi = c - 1;
        } else if (holds) t.hi = c - 1;
        else t.lo = c;
      }
    }
  }
  for (const t of targets) {
    const day = t.days[t.lo];
    if (day) Object.assign(t.f, { start: day.start, end: day.end });
  }
}

/** Models that cost money in the window and not in the one before (at least the minimum), and the reverse. */
function modelChanges(current: ModelSpendOver, before: ModelSpendOver, minAmount: Decimal): Finding[] {
  if (current.incomplete || before.incomplete) return [];
  const found: Finding[] = [];
  // A model whose spend cannot be read in either window neither started nor stopped: it is unknown, never zero.
  const unread = new Set([...current.unknown, ...before.unknown]);
  for (const [model, spend] of current.spend) {
    if (unread.has(model)) continue;
    const earlier = before.spend.get(model);
    if ((earlier === undefined || earlier.isZero()) && spend.gte(minAmount) && !spend.isZero()) found.push({ kind: 'new_model', start: current.window.start, end: current.window.end, model, amount: spend, baseline: earlier ?? new Decimal(0), ratio: null });
  }
  for (const [model, spend] of before.spend) {
    if (unread.has(model)) continue;
    const now = current.spend.get(model);
    if ((now === undefined || now.isZero()) && spend.gte(minAmount) && !spend.isZero()) found.push({ kind: 'stopped_model', start: current.window.start, end: current.window.end, model, amount: now ?? new Decimal(0), baseline: spend, ratio: new Decimal(0) });
  }
  return found;
}

/** Models whose records count tokens and no cost at all: billing that did not happen (or a free tier to know about). */
function zeroCost(current: ModelSpendOver): Finding[] {
  const fields = current.fields;
  if (!fields) return [];
  const found: Finding[] = [];
  for (const [model, u] of usagePerModel(current.records.filter((r) => isDecimalString(r[fields.spend])), fields)) {
    const tokens = (u.input ?? new Decimal(0)).plus(u.output ?? 0);
    if (u.amount?.isZero() && tokens.gt(0)) found.push({ kind: 'zero_cost', start: current.window.start, end: current.window.end, model, amount: new Decimal(0), baseline: null, ratio: null, tokens: tokens.toFixed() });
  }
  return found;
}

/** The window's complete buckets in `growthPeriods` equal periods (the oldest buckets left over are not counted), rising at every step. */
function steadyGrowth(values: Decimal[], slots: number[], rule: AnomalyRule, size: number): Finding | undefined {
  const per = Math.floor(values.length / rule.growthPeriods);
  if (per < 1 || rule.growthPeriods < 2) return undefined;
  const skip = values.length - per * rule.growthPeriods;
  const periods = Array.from({ length: rule.growthPeriods }, (_, p) => values.slice(skip + p * per, skip + (p + 1) * per).reduce((a, v) => a.plus(v), new Decimal(0)));
  const growth = findGrowth(periods, rule.growthStep, rule.minAmount);
  if (!growth) return undefined;
  const start = slots[skip]!;
  return { kind: 'growth', start, end: start + per * rule.growthPeriods * size, amount: periods[periods.length - 1]!, baseline: periods[0]!, ratio: periods[periods.length - 1]!.div(periods[0]!), periods, smallestStep: growth.smallestStep };
}

/**
 * Today's spike, from a day series already at hand (the forecast's: no request of its own), by
 * the default rule: what `status` and the statusline's {alert} say. Undefined when today is usual.
 */
export function spikeToday(series: { buckets: JsonObject[]; slots: number[] }, metric: string | undefined, now: number): Finding | undefined {
  if (metric === undefined) return undefined;
  const today = series.slots.findIndex((slot) => slot <= now && !ended({ end: slot + 86_400 }, now));
  if (today < 0) return undefined;
  const values = bucketAmounts(series.buckets.slice(0, today + 1), metric);
  const [spike] = findSpikes(values, DAY_RULE, today);
  return spike && { kind: 'spike', start: series.slots[today]!, end: series.slots[today]! + 86_400, amount: spike.amount, baseline: spike.baseline, ratio: spike.ratio };
}
