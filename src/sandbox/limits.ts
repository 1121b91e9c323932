// The user rate limits: fixed windows per user and scope (account endpoints 120 a minute, the
// model lists 240). The count goes up before the check, so Remaining can be negative.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.js';

export type LimitScope = 'account' | 'models';

export class RateLimits {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limits: Record<LimitScope, number>,
    readonly windowMs: number,
    readonly now: () => number,
  ) {}

  /** Counts the request and sets the headers; false (with a 429 sent) when over the limit. */
  admit(res: ServerResponse, user: string, scope: LimitScope): boolean {
    const limit = this.limits[scope];
    const id = `${scope}:${user}`;
    const now = this.now();
    let window = this.#windows.get(id);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(id, window);
    }
    window.count++;
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(limit - window.count));
    if (window.count <= limit) return true;
    sendJson(res, 429, rateLimitedBody(scope));
    return false;
  }
}

/** The 429 body of a scope: the model lists send a string error with a scope; the account endpoints an error object. */
export function rateLimitedBody(scope: LimitScope): unknown {
  return scope === 'models' ? { error: 'rate limit exceeded', scope: 'user' } : { error: { type: 'rate_limit_error', message: 'rate limit exceeded' } };
}
