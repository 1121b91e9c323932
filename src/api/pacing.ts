// Pacing and retries: the gateway's rate limit as its headers state it (requests a minute, what
// is left, when the window reopens), Retry-After within a cap, and exponential backoff with
// jitter. One Pacer per client: what one response says holds for the next request.

import { MAX_CONNECTIONS_PER_ORIGIN } from './transport-types.js';

/** The gateway's rate-limit window (the spec: so many requests per 60 seconds), and a margin past its end. */
const RATE_WINDOW_MS = 60_000;
const WINDOW_MARGIN_MS = 500;
/** A long export's waits on a 429, each for a window to reopen. */
export const PATIENT_ATTEMPTS = 6;

export interface RetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  /** First backoff for 503 draining and connection resets. */
  transientBaseMs: number;
  /** First backoff after a 429; the spec suggests about one second. */
  rateLimitBaseMs: number;
  /** A proxy's Retry-After is honoured up to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  transientBaseMs: 250,
  rateLimitBaseMs: 1000,
  maxRetryAfterMs: 10_000,
};

export class Pacer {
  readonly retry: RetryPolicy;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #deadline: number;
  /** The first request of the current window was sent then: it reopens a minute later. */
  #windowOpenedAt: number | undefined;
  /** When the gateway said (Retry-After) its window reopens: its own word beats a minute assumed. */
  #reopensAt: number | undefined;
  /** The last response showed X-RateLimit-Remaining <= 0: the next request waits. */
  exhausted = false;
  #rateLimit: number | undefined;
  #remaining: number | undefined;

  constructor(options: { retry?: RetryPolicy; now: () => number; random: () => number; deadline: number }) {
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.#now = options.now;
    this.#random = options.random;
    this.#deadline = options.deadline;
  }

  /** Requests a minute the gateway allows, as its X-RateLimit-Limit said (undefined until it says). */
  get rateLimit(): number | undefined {
    return this.#rateLimit;
  }

  /**
   * Of `open` requests the transport would send at once (HTTP/2's streams, HTTP/1.1's
   * connections): where the gateway states what is left of its rate limit (X-RateLimit-Remaining),
   * at most half of that beyond HTTP/1.1's four, so a burst never spends the window on its own.
   */
  together(open: number): number {
    const left = this.#remaining;
    return left === undefined ? open : Math.min(open, Math.max(MAX_CONNECTIONS_PER_ORIGIN, Math.floor(left / 2)));
  }

  #clockOffsetMs: number | undefined;

  /**
   * How far the gateway's clock is ahead of this machine's (ms, negative: behind), from the Date
   * header of its latest answer (whole seconds: within a second and a half either way is in step,
   * 0); undefined until an answer carries a Date header.
   */
  get clockOffsetMs(): number | undefined {
    return this.#clockOffsetMs;
  }

  /** What a response's rate-limit headers say, for the requests after it. */
  note(headers: Record<string, string | undefined>, sentAt: number): void {
    const remaining = Number(headers['x-ratelimit-remaining']);
    this.exhausted = headers['x-ratelimit-remaining'] !== undefined && Number.isFinite(remaining) && remaining <= 0;
    if (headers['x-ratelimit-remaining'] !== undefined && Number.isSafeInteger(remaining)) this.#remaining = Math.max(0, remaining);
    const limit = Number(headers['x-ratelimit-limit']);
    if (Number.isSafeInteger(limit) && limit > 0 && limit <= 1_000_000) this.#rateLimit = limit;
    // The first request of a window (one used of the limit) says when the window opened: it reopens a minute later.
    if (this.#rateLimit !== undefined && remaining === this.#rateLimit - 1) this.#windowOpenedAt = sentAt;
    // When the window reopens, as the gateway says it (a patient run waits that long, up to a window's length).
    const after = this.retryAfter(headers, RATE_WINDOW_MS);
    if (after !== undefined) this.#reopensAt = this.#now() + after;
    const said = Date.parse(headers.date ?? '');
    // The header drops the milliseconds: the gateway's time lies in [said, said + 1 s).
    if (Number.isFinite(said)) {
      const offset = said + 500 - this.#now();
      this.#clockOffsetMs = Math.abs(offset) <= 1500 ? 0 : offset;
    }
  }

  /** How long until the gateway's rate-limit window (a minute) reopens: from the first request seen in it, else a whole window. */
  windowReopensIn(): number {
    const now = this.#now();
    // The gateway said when (Retry-After): that, with a margin.
    if (this.#reopensAt !== undefined && this.#reopensAt > now) return Math.min(RATE_WINDOW_MS + WINDOW_MARGIN_MS, this.#reopensAt - now + WINDOW_MARGIN_MS);
    const opened = this.#windowOpenedAt;
    const wait = opened === undefined ? RATE_WINDOW_MS : opened + RATE_WINDOW_MS + WINDOW_MARGIN_MS - now;
    return Math.min(RATE_WINDOW_MS + WINDOW_MARGIN_MS, Math.max(this.backoff(this.retry.rateLimitBaseMs, 1), wait));
  }

  /**
   * How long to wait before a request when the limit is used up: one request's share of the
   * minute (the limit the gateway states, not an assumed one), and never less than the base.
   */
  pacingDelay(): number {
    const share = this.#rateLimit ? Math.ceil(60_000 / this.#rateLimit) : 0;
    return Math.max(this.backoff(this.retry.rateLimitBaseMs, 1), Math.min(share, this.retry.maxRetryAfterMs));
  }

  /** A Retry-After worth waiting for: positive and at most the cap; a zero, negative or unreadable one leaves the backoff to tally. */
  retryAfter(headers: Record<string, string | undefined>, cap = this.retry.maxRetryAfterMs): number | undefined {
    const value = headers['retry-after']?.trim();
    if (value === undefined || value === '') return undefined;
    const ms = /^-?\d+(?:\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - this.#now();
    if (!Number.isFinite(ms) || ms <= 0) return undefined;
    return Math.min(ms, cap);
  }

  /** Exponential backoff with jitter between half and the whole step. */
  backoff(baseMs: number, attempt: number): number {
    const step = baseMs * 2 ** (attempt - 1);
    return Math.round(step / 2 + (step / 2) * this.#random());
  }

  /** Whether a wait of this long still ends before the command's deadline. */
  fitsDeadline(delayMs: number): boolean {
    return this.#now() + delayMs < this.#deadline;
  }
}
