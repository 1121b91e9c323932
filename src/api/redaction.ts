// What leaves a request in words (errors, --debug lines) is redacted of the credential and
// escaped; the response headers --debug shows are read, never echoed.
import { redact } from '../domain/secrets.js';
import { escapeControl } from '../output/escape.js';
import type { JsonRequest } from './request.js';
import type { TransportResponse } from './transport.js';

export class RequestLog {
  readonly #secret: string | undefined;
  readonly #sink: ((line: string) => void) | undefined;
  readonly #now: () => number;

  constructor(options: { secret: string | undefined; log?: (line: string) => void; now: () => number }) {
    this.#secret = options.secret;
    this.#sink = options.log;
    this.#now = options.now;
  }

  /** Text from the service or the network, fit for a message: no credential, no escape sequence, at most 500 characters. */
  clean(text: string): string {
    return escapeControl(redact(text, [this.#secret])).slice(0, 500);
  }

  log(line: string): void {
    this.#sink?.(redact(line, [this.#secret]));
  }

  /** One --debug line per response: what was asked, whether the credential went, the status, the time, the headers tally reads. */
  response(request: JsonRequest, url: URL, response: TransportResponse, started: number, credentialSent: boolean): void {
    if (!this.#sink) return;
    const shown = loggedHeaders(response.headers);
    const auth = credentialSent ? ' [authorization: Bearer ****]' : '';
    const connection = `${response.reused === undefined ? '' : response.reused ? ', connection reused' : ', new connection'}${response.protocol === 'h2' ? ', HTTP/2' : response.protocol === 'http/1.1' && url.protocol === 'https:' ? ', HTTP/1.1' : ''}`;
    this.log(`${request.method ?? 'GET'} ${url.href}${auth} -> ${response.status} in ${this.#now() - started} ms${connection}${shown.length ? ` (${shown.join(', ')})` : ''}`);
  }
}

/**
 * The headers --debug reports, as tally reads them: numbers as numbers, X-Cache as HIT, MISS or
 * "unrecognised", a date as a date; anything else is "unrecognised" (its bytes are never echoed).
 * Location is a URL, logged redacted and escaped.
 */
function loggedHeaders(headers: Record<string, string | undefined>): string[] {
  const shown: string[] = [];
  const number = (value: string) => (/^-?\d{1,15}$/.test(value.trim()) ? value.trim() : 'unrecognised');
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining']) {
    const value = headers[name];
    if (value !== undefined) shown.push(`${name}: ${number(value)}`);
  }
  const retry = headers['retry-after'];
  if (retry !== undefined) shown.push(`retry-after: ${/^-?\d+(?:\.\d+)?$/.test(retry.trim()) ? retry.trim() : Number.isFinite(Date.parse(retry)) ? new Date(Date.parse(retry)).toISOString() : 'unrecognised'}`);
  const cache = headers['x-cache'];
  if (cache !== undefined) shown.push(`x-cache: ${['HIT', 'MISS'].includes(cache.trim().toUpperCase()) ? cache.trim().toUpperCase() : 'unrecognised'}`);
  const location = headers.location;
  if (location !== undefined) shown.push(`location: ${location.slice(0, 300)}`);
  const encoding = headers['content-encoding'];
  if (encoding !== undefined) shown.push(`content-encoding: ${/^[\w.+-]{1,20}$/.test(encoding.trim()) ? encoding.trim() : 'unrecognised'}`);
  return shown;
}
