// Sends one alert to a destination: a POST over the run's connection pool (TALLY_CA_FILE
// trusted), bounded by --timeout, never carrying the gateway's credential, and never following a
// redirect to another origin. The destination's URL is a secret: no message names more of it
// than its kind and name.
import type { Context } from '../context.js';
import { NetworkError, ServiceError, TallyError } from '../errors.js';
import { type Alert, type Delivery, type NotifyKind, isTextKind, payloadFor } from './payloads.js';

export interface Destination {
  name: string;
  kind: NotifyKind;
  url: string;
  /** A chat bot's signing secret (Feishu, DingTalk), an e-mail account's password. */
  secret?: string;
}

/** How much of a reply is read to know whether the message was taken. */
const MAX_REPLY_BYTES = 64 * 1024;

const MAX_REDIRECTS = 3;

/** Delivers `alert`; throws a TallyError saying why it was not delivered. */
export async function deliver(ctx: Context, destination: Destination, alert: Alert): Promise<void> {
  return deliverPayload(ctx, destination, payloadFor(destination.kind, { ...alert, message: ctx.secrets.scrubMessage(alert.message) }));
}

/** Delivers a payload already built for the destination's kind (an alert, a report). */
export async function deliverPayload(ctx: Context, destination: Destination, payload: Delivery): Promise<void> {
  const what = `${destination.kind} "${destination.name}"`;
  if (isTextKind(destination.kind)) {
    if (destination.kind === 'email') return (await import('./email.js')).sendEmail(ctx, what, destination.url, destination.secret, payload);
    const { chatRequests, WECOM_PER_MINUTE } = await import('./chat.js');
    for (const request of chatRequests(destination.kind, destination.url, destination.secret, ctx.secrets.scrubMessage(payload.body), ctx.now())) {
      const sent = destination.kind === 'wecom' ? await (await import('./pace.js')).withinRate(ctx, what, destination.url, WECOM_PER_MINUTE) : undefined;
      const { status, reply } = await post(ctx, what, request.url, { contentType: 'application/json', headers: {}, body: request.body }, true);
      sent?.();
      const refused = status === 303 ? undefined : request.refused(status, reply);
      if (refused) throw new ServiceError(`${what} did not take the message (HTTP ${status}, ${ctx.secrets.scrubMessage(refused)})`, { status });
    }
    return;
  }
  await post(ctx, what, new URL(destination.url), payload, false);
}

/** POSTs one request, following same-origin redirects: its status and (when asked) the start of its reply. */
async function post(ctx: Context, what: string, start: URL, payload: Pick<Delivery, 'contentType' | 'headers' | 'body'>, readReply: boolean): Promise<{ status: number; reply: string }> {
  let url = start;
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
    let reply = '';
    if (readReply && response.status >= 200 && response.status < 300) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        chunks.push(Buffer.from(chunk));
        size += chunk.length;
        if (size > MAX_REPLY_BYTES) break;
      }
      reply = Buffer.concat(chunks).subarray(0, MAX_REPLY_BYTES).toString('utf8');
    }
    response.discard();
    // 303 See Other: the receiver took the POST and points at a page about it; posting again
    // would send the alert twice.
    if (response.status === 303) return { status: 303, reply: '' };
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== url.origin) throw new ServiceError(`${what} redirected to another origin; not followed`);
      if (redirects >= MAX_REDIRECTS) throw new ServiceError(`${what} redirected too many times`);
      url = next;
      continue;
    }
    if (response.status < 200 || response.status >= 300) throw new ServiceError(`${what} answered HTTP ${response.status}`, { status: response.status });
    return { status: response.status, reply };
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
