// The native family of the sandbox: balance, usage by time bucket, usage by model and the
// per-call log, computed from the seeded calls. The aggregating endpoints cache their answers
// by window and say so in X-Cache.
import type { ServerResponse } from 'node:http';
import { type Decimal, ZERO } from '../domain/money.js';
import { type Call, type SandboxAccount, type SandboxKey } from './seed.js';
import { intParam, send, sendJson } from './http.js';

/** How the sandbox names the fields of a usage bucket (the spec does not publish them). */
export type BucketNaming = 'compact' | 'detailed' | 'iso';

export interface NativeOptions {
  now: () => number;
  naming: BucketNaming;
  /** Offset of the day grid from UTC, in minutes. */
  dayOffsetMinutes: number;
  cacheMs: number;
  /** Serve this many generated log entries (over the last six days) instead of the seeded calls. */
  logSize: number | undefined;
  /** Seconds a call takes to appear in the per-call log (real gateways book it late); the counters book it at once. */
  logLagSeconds?: number;
  /** Report cache-read and reasoning tokens in usage by model and the log. */
  tokenClasses?: boolean;
}

const DAY = 86_400;
const MAX_WINDOW = 92 * DAY;

interface Sum {
  requests: number;
  prompt: number;
  completion: number;
  cacheRead: number;
  reasoning: number;
  cost: Decimal;
}

export class NativeFamily {
  /** Answers by key and window, serialised once (the gateway's cache). */
  readonly #cache = new Map<string, { body: string; expires: number }>();

  constructor(
    readonly options: NativeOptions,
    readonly calls: () => Call[],
  ) {}

  #nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  dayStart(seconds: number): number {
    const offset = this.options.dayOffsetMinutes * 60;
    return Math.floor((seconds + offset) / DAY) * DAY - offset;
  }

  spend(filter: (call: Call) => boolean): Decimal {
    let total = ZERO;
    for (const call of this.calls()) if (filter(call)) total = total.plus(call.cost);
    return total;
  }

  balance(account: SandboxAccount, key: SandboxKey | null): unknown {
    const spend = this.spend((c) => c.account === account.id);
    const today = this.dayStart(this.#nowSeconds());
    return {
      currency: 'CNY',
      balance: account.topUps.minus(spend).toFixed(8),
      lifetime_spend: spend.toFixed(8),
      plan: { has_active_plan: false },
      api_key: key === null ? null : {
        name: key.name,
        prefix: key.prefix,
        daily_cost_limit: key.dailyCostLimit,
        daily_cost_used: this.spend((c) => c.key === key.secret && c.at >= today).toFixed(8),
      },
    };
  }

  /** The window a request asks for, aligned down to the bucket grid; the excess over 92 days cut from the start. */
  #window(url: URL, bucket: 'hour' | 'day'): { start: number; end: number } {
    const size = bucket === 'hour' ? 3600 : DAY;
    const now = this.#nowSeconds();
    const align = (t: number) => (bucket === 'day' ? this.dayStart(t) : Math.floor(t / size) * size);
    const end = align(intParam(url, 'end') ?? now + size);
    let start = align(intParam(url, 'start') ?? end - (bucket === 'hour' ? DAY : 7 * DAY));
    if (end - start > MAX_WINDOW) start = end - MAX_WINDOW;
    return { start, end };
  }

  #days?: { calls: Call[]; length: number; index: Map<number, Map<string, Map<string, Sum>>> };

  /**
   * The calls summed per day, key and model (what a gateway answers usage by model from): built
   * once, and again when calls were added (--live, the generation stand-in). Dating an anomaly
   * asks for dozens of windows at once; each is then a few dozen additions, not a pass over every call.
   */
  #dayIndex(): Map<number, Map<string, Map<string, Sum>>> {
    const calls = this.calls();
    if (this.#days?.calls === calls && this.#days.length === calls.length) return this.#days.index;
    const index = new Map<number, Map<string, Map<string, Sum>>>();
    for (const call of calls) {
      const day = this.dayStart(call.at);
      const byKey = index.get(day) ?? new Map<string, Map<string, Sum>>();
      index.set(day, byKey);
      const byModel = byKey.get(call.key) ?? new Map<string, Sum>();
      byKey.set(call.key, byModel);
      const sum = byModel.get(call.model) ?? emptySum();
      addCall(sum, call);
      byModel.set(call.model, sum);
    }
    this.#days = { calls, length: calls.length, index };
    return index;
  }

  /** Answers from the cache (X-Cache: HIT) or computes and caches (MISS). */
  #cached(res: ServerResponse, key: string, compute: () => unknown): void {
    const cached = this.#cache.get(key);
    if (cached && cached.expires > this.options.now()) {
      res.setHeader('X-Cache', 'HIT');
      return send(res, 200, cached.body);
    }
    const body = JSON.stringify(compute());
    this.#cache.set(key, { body, expires: this.options.now() + this.options.cacheMs });
    res.setHeader('X-Cache', 'MISS');
    send(res, 200, body);
  }

  usage(res: ServerResponse, url: URL, key: SandboxKey): void {
    const bucket = url.searchParams.get('bucket') ?? 'day';
    if (bucket !== 'hour' && bucket !== 'day') return sendJson(res, 500, { error: `invalid bucket "${bucket}"` });
    const { start, end } = this.#window(url, bucket);
    if (end <= start) return sendJson(res, 500, { error: 'start must be before end' });
    this.#cached(res, `usage|${key.account}|${bucket}|${start}|${end}`, () => {
      const size = bucket === 'hour' ? 3600 : DAY;
      const align = (t: number) => (bucket === 'day' ? this.dayStart(t) : Math.floor(t / size) * size);
      const sums = new Map<number, Sum>();
      for (const call of this.calls()) {
        if (call.account !== key.account || call.at < start || call.at >= end) continue;
        const at = align(call.at);
        const sum = sums.get(at) ?? emptySum();
        addCall(sum, call);
        sums.set(at, sum);
      }
      const totals = emptySum();
      for (const sum of sums.values()) mergeSum(totals, sum);
      // Usage over time is the account's (every key); per model and per call, the calling key's.
      return {
        bucket,
        scope: 'account',
        start,
        end,
        buckets: [...sums.entries()].sort(([a], [b]) => a - b).map(([at, sum]) => this.#bucketRecord(at, sum)),
        totals: this.#metrics(totals),
      };
    });
  }

  #bucketRecord(at: number, sum: Sum): Record<string, unknown> {
    switch (this.options.naming) {
      case 'compact': return { start: at, ...this.#metrics(sum) };
      case 'detailed': return { ts: at * 1000, ...this.#metrics(sum) };
      case 'iso': return { time: isoWithOffset(at, this.options.dayOffsetMinutes), ...this.#metrics(sum) };
    }
  }

  #metrics(sum: Sum): Record<string, unknown> {
    switch (this.options.naming) {
      case 'compact': return { calls: sum.requests, cost: sum.cost.toFixed(8) };
      case 'detailed': return { requests: sum.requests, prompt_tokens: sum.prompt, completion_tokens: sum.completion, spend: sum.cost.toFixed(8) };
      case 'iso': return { request_count: sum.requests, input_tokens: sum.prompt, output_tokens: sum.completion, cost_yuan: sum.cost.toFixed(8) };
    }
  }

  usageByModel(res: ServerResponse, url: URL, key: SandboxKey): void {
    const { start, end } = this.#window(url, 'day');
    this.#cached(res, `models|${key.secret}|${start}|${end}`, () => {
      // Whole days (the window is aligned to them): each day's sums per model, added in order (a model first seen first).
      const byModel = new Map<string, Sum>();
      const days = this.#dayIndex();
      for (let day = start; day < end; day += DAY) {
        for (const [model, daySum] of days.get(day)?.get(key.secret) ?? []) {
          const sum = byModel.get(model) ?? emptySum();
          mergeSum(sum, daySum);
          byModel.set(model, sum);
        }
      }
      return {
        scope: 'key',
        start,
        end,
        models: [...byModel.entries()]
          .sort(([, a], [, b]) => b.cost.comparedTo(a.cost))
          .map(([model, sum]) => ({ model, requests: sum.requests, prompt_tokens: sum.prompt, completion_tokens: sum.completion, ...this.#classes(sum.cacheRead, sum.reasoning), cost: sum.cost.toFixed(8) })),
      };
    });
  }

  /** With --token-classes, the classes beyond in and out under the naming's own names (every record: a class reported is reported as 0 too). */
  #classes(cacheRead: number, reasoning: number): Record<string, number> {
    if (!this.options.tokenClasses) return {};
    switch (this.options.naming) {
      case 'compact': return { cache_read_tokens: cacheRead, reasoning_tokens: reasoning };
      case 'detailed': return { cached_tokens: cacheRead, reasoning_tokens: reasoning };
      case 'iso': return { cache_read_input_tokens: cacheRead, reasoning_output_tokens: reasoning };
    }
  }

  logs(res: ServerResponse, url: URL, key: SandboxKey): void {
    const now = this.#nowSeconds();
    const end = intParam(url, 'end') ?? now + 1;
    const start = intParam(url, 'start') ?? end - DAY;
    const limit = Math.min(Math.max(intParam(url, 'limit') ?? 50, 1), 1000);
    const cursor = url.searchParams.get('cursor');
    const offset = cursor ? Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10) : 0;
    if (!Number.isInteger(offset) || offset < 0) return sendJson(res, 500, { error: 'invalid cursor' });
    const entries = this.options.logSize === undefined ? this.#seededEntries(url, key, start, end, now) : generatedEntries(this.options.logSize, now, start, end);
    const page: unknown[] = [];
    for (let i = offset; i < Math.min(offset + limit, entries.length); i++) page.push(entries.entry(i));
    const next = offset + limit < entries.length ? Buffer.from(String(offset + limit)).toString('base64url') : null;
    sendJson(res, 200, { scope: 'key', data: page, next_cursor: next, has_more: next !== null });
  }

  #seededEntries(url: URL, key: SandboxKey, start: number, end: number, now: number): LogEntries {
    const model = url.searchParams.get('model');
    // A call is in the log once it is booked: --log-lag seconds after it was made.
    const booked = now - (this.options.logLagSeconds ?? 0);
    const calls = this.calls()
      .filter((c) => c.key === key.secret && c.at >= start && c.at < end && c.at <= booked && (!model || c.model === model))
      .reverse();
    return {
      length: calls.length,
      entry: (i) => {
        const c = calls[i]!;
        return { id: c.id, created_at: c.at, model: c.model, prompt_tokens: c.promptTokens, completion_tokens: c.completionTokens, ...this.#classes(c.cacheReadTokens ?? 0, c.reasoningTokens ?? 0), cost: c.cost.toFixed(8), latency_ms: c.latencyMs, status: c.status ?? 'success' };
      },
    };
  }
}

/** Log entries, newest first, built one at a time as a page asks for them. */
interface LogEntries {
  length: number;
  entry(index: number): unknown;
}

const GENERATED_MODELS = ['gpt-5-mini', 'claude-sonnet-4.5', 'deepseek-chat', 'qwen3-coder-plus'];

/**
 * `count` log entries spread evenly over the six days before now, newest first; those in
 * [start, end) are served. Nothing is built until a page holds it, so 200,000 entries cost no memory.
 */
function generatedEntries(count: number, now: number, start: number, end: number): LogEntries {
  const span = 6 * DAY;
  const at = (i: number) => now - Math.floor((i * span) / count);
  // Times fall as the index grows: the window is one run of indexes.
  let first = 0;
  while (first < count && at(first) >= end) first++;
  let last = first;
  while (last < count && at(last) >= start) last++;
  return {
    length: last - first,
    entry: (offset) => {
      const i = first + offset;
      const prompt = 200 + ((i * 7919) % 24_000);
      const completion = 50 + ((i * 104_729) % 3_000);
      return {
        id: `gen_${i.toString(36).padStart(7, '0')}`,
        created_at: at(i),
        model: GENERATED_MODELS[i % GENERATED_MODELS.length],
        prompt_tokens: prompt,
        completion_tokens: completion,
        // gpt-5-mini's prices, in units of 1e-8 yuan: whole numbers, exact.
        cost: fromLedgerUnits(prompt * 175 + completion * 1400),
        latency_ms: 300 + ((i * 31) % 9000),
        status: 'success',
      };
    },
  };
}

/** A whole number of 1e-8 yuan as a decimal string with 8 places. */
function fromLedgerUnits(units: number): string {
  return `${Math.floor(units / 1e8)}.${String(units % 1e8).padStart(8, '0')}`;
}

function emptySum(): Sum {
  return { requests: 0, prompt: 0, completion: 0, cacheRead: 0, reasoning: 0, cost: ZERO };
}

function addCall(sum: Sum, call: Call): void {
  sum.requests++;
  sum.prompt += call.promptTokens;
  sum.completion += call.completionTokens;
  sum.cacheRead += call.cacheReadTokens ?? 0;
  sum.reasoning += call.reasoningTokens ?? 0;
  sum.cost = sum.cost.plus(call.cost);
}

function mergeSum(into: Sum, sum: Sum): void {
  into.requests += sum.requests;
  into.prompt += sum.prompt;
  into.completion += sum.completion;
  into.cacheRead += sum.cacheRead;
  into.reasoning += sum.reasoning;
  into.cost = into.cost.plus(sum.cost);
}

function isoWithOffset(seconds: number, offsetMinutes: number): string {
  const local = new Date((seconds + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
