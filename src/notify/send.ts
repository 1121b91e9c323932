// Sends one alert to a destination: a POST over the run's connection pool (TALLY_CA_FILE
// trusted), bounded by --timeout, never carrying the gateway's credential, and never following a
// redirect to another origin. The destination's URL is a secret: no message names more of it
// than its kind and name.
import type { Context } from '../context.js';
import { NetworkError, ServiceError, TallyError } from '../errors.js';
import { type Alert, type Delivery, type NotifyKind, payloadFor } from './payloads.js';

export interface Destination {
  name: string;
  kind: NotifyKind;
  url: string;
}

const MAX_REDIRECTS = 3;

/** Delivers `alert`; throws a TallyError saying why it was not delivered. */
export async function deliver(ctx: Context, destination: Destination, alert: Alert): Promise<void> {
  return deliverPayload(ctx, destination, payloadFor(destination.kind, { ...alert, message: ctx.secrets.scrubMessage(alert.message) }));
}

/** Delivers a payload already built for the destination's kind (an alert, a report). */
export async function deliverPayload(ctx: Context, destination: Destination, payload: Delivery): Promise<void> {
  const what = `${destination.kind} "${destination.name}"`;
  let url = new URL(destination.url);
  for (let redirects = 0; ; redirects++) {
    let response;
    try {
      response = await ctx.transport()({
        method: 'POST',
        url,
        headers: { 'content-type': payload.contentType, 'user-agent': 'tally', ...payload.headers },
        body: payload.body,
        signal: ctx.signal,
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.abortError();
      if (error instanceof TallyError) throw error;
      throw new NetworkError(`${what} could not be reached (${(error as NodeJS.ErrnoException).code ?? 'no connection'})`);
    }
    response.discard();
    // 303 See Other: the receiver took the POST and points at a page about it; posting again
    // would send the alert twice.
    if (response.status === 303) return;
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== url.origin) throw new ServiceError(`${what} redirected to another origin; not followed`);
      if (redirects >= MAX_REDIRECTS) throw new ServiceError(`${what} redirected too many times`);
      url = next;
      continue;
    }
    if (response.status < 200 || response.status >= 300) throw new ServiceError(`${what} answered HTTP ${response.status}`, { status: response.status });
    return;
  }
}

/** `https://hooks.slack.com/…Xy12`: the scheme, the host and the last 4 characters, never more. */
export function maskDestination(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…${url.slice(-4)}`;
  } catch {
    return '(not a URL)';
  }
}
