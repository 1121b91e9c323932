// The HTTP core: the only code that sends requests. It attaches the credential (only to the
// configured origin, never to the public catalog), retries what is transient, honours the
// rate limit, bounds everything by the command's deadline, parses JSON losslessly and turns
// every error shape of the service into a typed error.
import {
  AuthError,
  Interrupted,
  NetworkError,
  RateLimitError,
  ServiceError,
  TimeoutError,
  TallyError,
} from '../errors.js';
import { type JsonValue, isJsonObject, parseJson } from '../domain/json.js';
import { redact } from '../domain/secrets.js';
import { escapeControl } from '../output/escape.js';
import type { Transport, TransportResponse } from './transport.js';

export type CredentialKind = 'api-key' | 'device-token';

export interface Credential {
  kind: CredentialKind;
  secret: string;
}

/**
 * Which error conventions a path follows (see the spec's Errors table):
 * native `/v1/open/*`, compatible billing, the public catalog, the model lists, OAuth.
 */
export type Family = 'native' | 'compat' | 'catalog' | 'models' | 'oauth';

/** The gateway's rate-limit window (the spec: so many requests per 60 seconds), and a margin past its end. */
const RATE_WINDOW_MS = 60_000;
const WINDOW_MARGIN_MS = 500;
/** A long export's waits on a 429, each for a window to reopen. */
const PATIENT_ATTEMPTS = 6;

export interface JsonRequest {
  path: string;
  query?: Record<string, string | undefined>;
  family: Family;
  /** `api-key`: only an API key works here; `any`: a device token too; `none`: never sent. */
  auth: 'api-key' | 'any' | 'none';
  method?: 'GET' | 'POST';
  form?: Record<string, string>;
  /** Statuses whose JSON body the caller reads itself (OAuth errors are 400s). */
  acceptStatus?: (status: number) => boolean;
  /** false: a 429 here is final (an endpoint behind a strict limit of its own, whose window a retry within seconds never reopens). */
  retryRateLimit?: false;
  /**
   * A long export (logs --all): when the gateway's rate limit is used up, wait for its window
   * (60 s) to reopen rather than a request's share of it, and keep waiting on a 429: the export
   * finishes at the pace the gateway allows.
   */
  patient?: true;
}

export interface JsonResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: JsonValue;
  /** The body exactly as received. */
  text: string;
  /** The body's bytes as received (a byte order mark left out, as from `text`). */
  bytes: Buffer;
  url: URL;
}

/** A 2xx answer whose bytes were exactly those the caller already held (see requestJsonUnlessKnown). */
export interface UnchangedResponse {
  unchanged: true;
  status: number;
  headers: Record<string, string | undefined>;
}

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

export interface HttpClientOptions {
  baseUrl: URL;
  credential?: Credential;
  transport: Transport;
  /** Aborts on the command deadline (reason TimeoutError) or Ctrl-C (reason Interrupted). */
  signal: AbortSignal;
  /** Milliseconds since the epoch at which the command's deadline falls. */
  deadline: number;
  timeoutSeconds: number;
  log?: (line: string) => void;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
  retry?: RetryPolicy;
  maxBodyBytes?: number;
  userAgent?: string;
  /** Told why the client waits (rate limited, the gateway draining), for a progress line; undefined when the wait is over. */
  onWait?: (reason: string | undefined) => void;
}

const MAX_REDIRECTS = 5;
/** A request without an answer for this long is said on a terminal (waiting for HOST…). */
const SLOW_REQUEST_MS = 1000;
const DEFAULT_MAX_BODY = 50 * 1024 * 1024;

/** Thrown by a transport or a body read; what the retry loop looks at. */
interface SystemError {
  code?: string;
  name?: string;
}

export class HttpClient {
  readonly baseUrl: URL;
  readonly credential: Credential | undefined;
  readonly #options: HttpClientOptions;
  readonly #retry: RetryPolicy;
  /** Set when a response showed X-RateLimit-Remaining <= 0: the next request waits. */
  #windowOpenedAt: number | undefined;
  #rateLimitExhausted = false;
  #rateLimit: number | undefined;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.baseUrl = options.baseUrl;
    this.credential = options.credential;
    this.#retry = options.retry ?? DEFAULT_RETRY;
  }

  get host(): string {
    return this.baseUrl.host;
  }

  /** An error for a response whose shape is not what the interface promises. */
  unexpected(detail: string, status?: number): ServiceError {
    return new ServiceError(`unexpected response from ${this.host}: ${this.#clean(detail)}`, { status });
  }

  async requestJson(request: JsonRequest): Promise<JsonResponse> {
    // Without known bytes there is no unchanged answer.
    return (await this.#request(request, undefined)) as JsonResponse;
  }

  /**
   * requestJson for a resource the caller already holds: a 2xx answer whose bytes are exactly
   * `known` (a body accepted and cached before) is not decoded, parsed or checked again, which
   * for a catalog of megabytes is most of the work.
   */
  async requestJsonUnlessKnown(request: JsonRequest, known: Uint8Array): Promise<JsonResponse | UnchangedResponse> {
    return this.#request(request, known);
  }

  async #request(request: JsonRequest, known: Uint8Array | undefined): Promise<JsonResponse | UnchangedResponse> {
    this.#checkCredential(request);
    let url = this.#url(request);
    let redirects = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.#rateLimitExhausted) {
        if (request.patient) await this.#wait(this.#windowReopensIn(), request, `rate limit: the gateway's${this.#rateLimit ? ` ${this.#rateLimit} requests a minute` : ' limit'} used up, waiting for its window to reopen`);
        else await this.#wait(this.#pacingDelay(), request, `pacing: the rate limit${this.#rateLimit ? ` of ${this.#rateLimit} a minute` : ''} is used up`);
      }
      let response: TransportResponse;
      const started = this.#options.now();
      // A gateway slow to answer is said on a terminal after a second: never a silent wait.
      let slowShown = false;
      const slow = this.#options.onWait
        ? setTimeout(() => {
            slowShown = true;
            this.#options.onWait?.(`waiting for ${this.host}…`);
          }, SLOW_REQUEST_MS)
        : undefined;
      slow?.unref();
      // Without a deadline for the whole run (a long export without --timeout), each request keeps a bound of its own.
      const own = Number.isFinite(this.#options.deadline) ? undefined : AbortSignal.timeout(this.#options.timeoutSeconds * 1000);
      try {
        response = await this.#options.transport({
          method: request.method ?? 'GET',
          url,
          headers: this.#headers(request, url),
          body: request.form ? new URLSearchParams(request.form).toString() : undefined,
          signal: own ? AbortSignal.any([this.#options.signal, own]) : this.#options.signal,
        });
      } catch (error) {
        clearTimeout(slow);
        if (slowShown) this.#options.onWait?.(undefined);
        // tally's own refusal (a TALLY_CA_FILE that cannot be used) is not a network failure.
        if (error instanceof TallyError) throw error;
        if (own?.aborted && !this.#options.signal.aborted) throw new TimeoutError(`timed out after ${this.#options.timeoutSeconds}s waiting for ${this.host}`, { cause: error });
        const failure = this.#networkFailure(error, url);
        this.#log(`${request.method ?? 'GET'} ${url.href} -> ${failure.message} (${this.#options.now() - started} ms)`);
        if (isConnectionReset(error) && attempt < this.#retry.attempts) {
          await this.#wait(this.#backoff(this.#retry.transientBaseMs, attempt), request, `connection reset, retrying (${attempt + 1}/${this.#retry.attempts})`);
          continue;
        }
        throw failure;
      }

      // The wait is said until the whole answer is in: a body that stalls after its headers is a wait too.
      const endSlow = () => {
        clearTimeout(slow);
        if (slowShown) this.#options.onWait?.(undefined);
      };
      const { status, headers } = response;
      this.#logResponse(request, url, response, started);
      this.#noteRateLimit(headers, started);

      const location = headers.location;
      if (status >= 300 && status < 400 && location) {
        endSlow();
        response.discard();
        const next = new URL(location, url);
        if (next.origin !== url.origin) {
          throw new ServiceError(
            `${this.host} redirected ${url.pathname} to another origin (${next.origin}); not followed, so the credential stays here`,
            { status },
          );
        }
        if (++redirects > MAX_REDIRECTS) throw new ServiceError(`too many redirects from ${this.host}`, { status });
        url = next;
        attempt--;
        continue;
      }

      let received: Buffer;
      try {
        received = await this.#readBody(response, url);
      } finally {
        endSlow();
      }
      const bytes = withoutByteOrderMark(received);
      if (known !== undefined && status >= 200 && status < 300 && bytes.equals(known)) return { unchanged: true, status, headers };
      // tally asks for no encoding: a compressed body is the server's mistake, said as such (not as "not JSON").
      const encoding = headers['content-encoding']?.trim().toLowerCase();
      if (encoding && encoding !== 'identity') {
        throw new ServiceError(`${this.host} sent a ${/^[\w.+-]{1,20}$/.test(encoding) ? encoding : 'compressed'} body for ${request.path}, though tally sent no Accept-Encoding; it cannot be read`, { status });
      }
      const text = bytes.toString('utf8');
      const parsed = parseBody(text);
      const body = 'value' in parsed ? parsed : undefined;

      if (status === 429) {
        const error = this.#rateLimited(headers, body, text, request.retryRateLimit === false ? `for ${request.path} (not retried: its limit is strict)` : `after ${this.#retry.attempts} attempts`);
        if (request.retryRateLimit === false) throw error;
        if (request.patient) {
          // A long export waits for the window to reopen, as often as the gateway's limit asks (within --timeout when given).
          const delay = this.#retryAfter(headers) ?? this.#windowReopensIn();
          if (attempt >= PATIENT_ATTEMPTS || !this.#fitsDeadline(delay)) throw error;
          await this.#wait(delay, request, `rate limit: waiting for the gateway's window to reopen (${attempt}/${PATIENT_ATTEMPTS})`);
          continue;
        }
        const delay = this.#retryAfter(headers) ?? this.#backoff(this.#retry.rateLimitBaseMs, attempt);
        if (attempt >= this.#retry.attempts || !this.#fitsDeadline(delay)) throw error;
        await this.#wait(delay, request, `rate limited, retrying (${attempt + 1}/${this.#retry.attempts})`);
        continue;
      }
      if (status === 503 && isDraining(body)) {
        if (attempt >= this.#retry.attempts || !this.#fitsDeadline(this.#retry.transientBaseMs)) {
          throw new ServiceError(
            `${this.host} answered HTTP 503 (instance draining) ${attempt} times; try again shortly`,
            { status },
          );
        }
        await this.#wait(this.#backoff(this.#retry.transientBaseMs, attempt), request, `the gateway is restarting (503 draining), retrying (${attempt + 1}/${this.#retry.attempts})`);
        continue;
      }
      if (request.acceptStatus?.(status) && body !== undefined) return { status, headers, body: body.value, text, bytes, url };
      if (status < 200 || status >= 300) throw this.#httpError(status, body, text, request);
      if (body === undefined) throw this.unexpected(`${'problem' in parsed ? parsed.problem : 'not JSON'} (${excerpt(text)})`, status);
      this.#checkBodyError(request, body.value, status);
      return { status, headers, body: body.value, text, bytes, url };
    }
  }

  #url(request: JsonRequest): URL {
    // OAuth endpoints may be configured as absolute URLs; they never get the credential.
    if (/^https?:\/\//.test(request.path)) return new URL(request.path);
    // The base URL may carry a path prefix (https://host/gateway): keep it.
    const base = this.baseUrl.href.endsWith('/') ? this.baseUrl.href : `${this.baseUrl.href}/`;
    const url = new URL(request.path.replace(/^\//, ''), base);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    return url;
  }

  #checkCredential(request: JsonRequest): void {
    if (request.auth === 'none') return;
    if (!this.credential) {
      throw new AuthError(
        'no credential: run `tally login` (or `tally login --with-token` in scripts), or set TALLY_API_KEY',
      );
    }
    if (request.auth === 'api-key' && this.credential.kind !== 'api-key') {
      throw new AuthError(
        `${request.path} needs an API key, and this profile is signed in with a device token (which the service accepts for balance only); ` +
          'run `tally login --with-token` with an API key, or set TALLY_API_KEY',
      );
    }
  }

  #headers(request: JsonRequest, url: URL): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#options.userAgent ?? 'tally',
    };
    if (request.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    // The credential goes to the configured origin only, and never to the public catalog
    // (whatever path led there: a redirect, a continuation).
    if (request.auth !== 'none' && this.credential && url.origin === this.baseUrl.origin && !/\/api\/pricing\/?$/.test(url.pathname)) {
      headers.authorization = `Bearer ${this.credential.secret}`;
    }
    return headers;
  }

  async #readBody(response: TransportResponse, url: URL): Promise<Buffer> {
    const limit = this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += chunk.byteLength;
        if (size > limit) {
          response.discard();
          throw new ServiceError(
            `response from ${url.host} is larger than ${limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MB` : `${limit} bytes`}; aborted`,
            { status: response.status },
          );
        }
        // A view, not a copy: the chunk is not reused once read.
        chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw this.#networkFailure(error, url);
    }
    return Buffer.concat(chunks);
  }

  #noteRateLimit(headers: Record<string, string | undefined>, sentAt: number): void {
    const remaining = Number(headers['x-ratelimit-remaining']);
    this.#rateLimitExhausted = headers['x-ratelimit-remaining'] !== undefined && Number.isFinite(remaining) && remaining <= 0;
    const limit = Number(headers['x-ratelimit-limit']);
    if (Number.isSafeInteger(limit) && limit > 0 && limit <= 1_000_000) this.#rateLimit = limit;
    // The first request of a window (one used of the limit) says when the window opened: it reopens a minute later.
    if (this.#rateLimit !== undefined && remaining === this.#rateLimit - 1) this.#windowOpenedAt = sentAt;
  }

  /** How long until the gateway's rate-limit window (a minute) reopens: from the first request seen in it, else a whole window. */
  #windowReopensIn(): number {
    const now = this.#options.now();
    const opened = this.#windowOpenedAt;
    const wait = opened === undefined ? RATE_WINDOW_MS : opened + RATE_WINDOW_MS + WINDOW_MARGIN_MS - now;
    return Math.min(RATE_WINDOW_MS + WINDOW_MARGIN_MS, Math.max(this.#backoff(this.#retry.rateLimitBaseMs, 1), wait));
  }

  /** Requests a minute the gateway allows, as its X-RateLimit-Limit said (undefined until it says). */
  get rateLimit(): number | undefined {
    return this.#rateLimit;
  }

  /**
   * How long to wait before a request when the limit is used up: one request's share of the
   * minute (the limit the gateway states, not an assumed one), and never less than the base.
   */
  #pacingDelay(): number {
    const share = this.#rateLimit ? Math.ceil(60_000 / this.#rateLimit) : 0;
    return Math.max(this.#backoff(this.#retry.rateLimitBaseMs, 1), Math.min(share, this.#retry.maxRetryAfterMs));
  }

  #rateLimited(headers: Record<string, string | undefined>, body: ParsedBody | undefined, text: string, when: string): RateLimitError {
    const limit = headers['x-ratelimit-limit'];
    const message = body ? serviceMessage(body.value) : undefined;
    const detail = limit ? ` (limit ${limit} requests per minute)` : '';
    const said = message ?? (text.trim() ? excerpt(text) : undefined);
    return new RateLimitError(
      `rate limited by ${this.host}${detail} ${when}${said ? `: ${this.#clean(said)}` : ''}`,
      { status: 429 },
    );
  }

  /** A Retry-After worth waiting for: positive and at most the cap; a zero, negative or unreadable one leaves the backoff to tally. */
  #retryAfter(headers: Record<string, string | undefined>): number | undefined {
    const value = headers['retry-after']?.trim();
    if (value === undefined || value === '') return undefined;
    const ms = /^-?\d+(?:\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - this.#options.now();
    if (!Number.isFinite(ms) || ms <= 0) return undefined;
    return Math.min(ms, this.#retry.maxRetryAfterMs);
  }

  /** Exponential backoff with jitter between half and the whole step. */
  #backoff(baseMs: number, attempt: number): number {
    const step = baseMs * 2 ** (attempt - 1);
    return Math.round(step / 2 + (step / 2) * this.#options.random());
  }

  #fitsDeadline(delayMs: number): boolean {
    return this.#options.now() + delayMs < this.#options.deadline;
  }

  async #wait(ms: number, request: JsonRequest, reason: string): Promise<void> {
    if (ms <= 0) return;
    this.#log(`waiting ${ms} ms before ${request.method ?? 'GET'} ${request.path}`);
    const seconds = Math.max(1, Math.round(ms / 1000));
    this.#options.onWait?.(`${this.host}: ${reason.replace('retrying', `retrying in ${seconds} s`)}…`);
    try {
      await this.#options.sleep(ms, this.#options.signal);
    } catch (error) {
      throw this.#abortError(error);
    } finally {
      this.#options.onWait?.(undefined);
    }
  }

  #httpError(status: number, body: ParsedBody | undefined, text: string, request: JsonRequest): TallyError {
    const value = body?.value;
    const message = value === undefined ? undefined : serviceMessage(value);
    const said = message ? `: ${this.#clean(message)}` : text.trim() && body === undefined ? ` (${excerpt(this.#clean(text))})` : '';
    const code = value === undefined ? undefined : errorCode(value);
    if (status === 401) {
      return new AuthError(`${this.host} rejected the credential (HTTP 401)${said}`, { status, hint: 'Check which credential is in use with `tally auth status`.' });
    }
    if (status === 403) return new AuthError(`${this.host} denied access to ${request.path} (HTTP 403)${said}`, { status });
    if (status === 413) return new ServiceError(`request too large for ${this.host} (HTTP 413)${said}`, { status });
    if (status === 503 && code === 'endpoint_unsupported_by_providers') {
      return new ServiceError(`${this.host}: no upstream serves this model on this endpoint (HTTP 503)${said}; retrying will not help`, { status });
    }
    if (status === 504) return new ServiceError(`${this.host} timed out upstream (HTTP 504)${said}`, { status });
    // A base URL that ends in /v1 (as chat clients ask for it) makes every native path /v1/v1/...: say what was asked.
    const base = this.baseUrl.pathname.replace(/\/+$/, '');
    if (status === 404 && /\/v1$/i.test(base) && request.path.startsWith('/v1/')) {
      const asked = `${base}${request.path}`;
      return new ServiceError(`${this.host} answered HTTP 404 for ${asked}${said}`, { status, hint: `The base URL ends in /v1, so tally asked ${asked}; the base URL is the gateway's root: try ${this.baseUrl.origin}${base.slice(0, -3) || ''} (tally config set base_url, or TALLY_BASE_URL).` });
    }
    return new ServiceError(`${this.host} answered HTTP ${status} for ${request.path}${said}`, { status });
  }

  /**
   * HTTP 200 bodies that are errors all the same: `{error}` (an object or a message; `false`,
   * `""` or `null` say there is none) and `success: false`, on any endpoint.
   */
  #checkBodyError(request: JsonRequest, body: JsonValue, status: number): void {
    if (!isJsonObject(body) || request.family === 'oauth') return;
    if (isRealError(body.error)) {
      const message = serviceMessage(body) ?? 'an error without a message';
      throw new ServiceError(`${this.host} reported an error for ${request.path}: ${this.#clean(message)}`, { status });
    }
    if (body.success === false) {
      const message = serviceMessage(body);
      throw new ServiceError(
        `${this.host} reported success: false for ${request.path}${message ? `: ${this.#clean(message)}` : ''}`,
        { status },
      );
    }
  }

  #networkFailure(error: unknown, url: URL): ServiceError | Interrupted {
    if (this.#options.signal.aborted) return this.#abortError(error);
    const code = (error as SystemError | undefined)?.code;
    const proxy = (error as { proxy?: unknown } | undefined)?.proxy;
    if (typeof proxy === 'string') return this.#proxyFailure(error, code, proxy, url);
    const where = url.host;
    switch (code) {
      case 'ECONNREFUSED': return new NetworkError(`cannot connect to ${where}: connection refused`, { cause: error });
      case 'ENOTFOUND':
      case 'EAI_AGAIN': return new NetworkError(`cannot resolve ${url.hostname}`, { cause: error });
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET': return new NetworkError(`connection to ${where} was reset`, { cause: error });
      case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      case 'SELF_SIGNED_CERT_IN_CHAIN':
      case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      case 'UNABLE_TO_GET_ISSUER_CERT':
      case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
        return new NetworkError(`the TLS certificate of ${where} is not signed by an authority this machine trusts (${code}); for a private CA or a TLS-inspecting proxy, name its certificate in TALLY_CA_FILE (PEM)`, { cause: error });
      case 'CERT_HAS_EXPIRED': return new NetworkError(`the TLS certificate of ${where} has expired`, { cause: error });
      case 'ERR_TLS_CERT_ALTNAME_INVALID': return new NetworkError(`the TLS certificate of ${where} is for another host name`, { cause: error });
      default: {
        const message = error instanceof Error ? error.message : String(error);
        return new NetworkError(`request to ${where} failed: ${this.#clean(message)}`, { cause: error });
      }
    }
  }

  /** A request through a proxy that failed: the proxy is named, and the gateway is not blamed. */
  #proxyFailure(error: unknown, code: string | undefined, proxy: string, url: URL): NetworkError {
    const message = error instanceof Error ? error.message : String(error);
    const tunnel = /Proxy response \((\d{3})\)/.exec(message);
    const what =
      code === 'ECONNREFUSED' ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'its name does not resolve'
      : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'the connection was reset'
      : tunnel ? `it refused to open a tunnel to ${url.host} (HTTP ${tunnel[1]})`
      : this.#clean(message);
    return new NetworkError(`cannot reach ${url.host} through the proxy ${proxy} (HTTPS_PROXY/HTTP_PROXY): ${what}`, { cause: error });
  }

  #abortError(error: unknown): TimeoutError | Interrupted {
    const reason: unknown = this.#options.signal.reason;
    if (reason instanceof Interrupted) return reason;
    return new TimeoutError(`timed out after ${this.#options.timeoutSeconds}s waiting for ${this.host}`, { cause: error });
  }

  #clean(text: string): string {
    return escapeControl(redact(text, [this.credential?.secret])).slice(0, 500);
  }

  #log(line: string): void {
    this.#options.log?.(redact(line, [this.credential?.secret]));
  }

  #logResponse(request: JsonRequest, url: URL, response: TransportResponse, started: number): void {
    if (!this.#options.log) return;
    const shown = loggedHeaders(response.headers);
    const auth = request.auth !== 'none' && this.credential && url.origin === this.baseUrl.origin && !/\/api\/pricing\/?$/.test(url.pathname) ? ' [authorization: Bearer ****]' : '';
    const connection = response.reused === undefined ? '' : response.reused ? ', connection reused' : ', new connection';
    this.#log(
      `${request.method ?? 'GET'} ${url.href}${auth} -> ${response.status} in ${this.#options.now() - started} ms${connection}${shown.length ? ` (${shown.join(', ')})` : ''}`,
    );
  }

}

interface ParsedBody {
  value: JsonValue;
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

/** RFC 8259 lets a parser ignore a byte order mark, which some servers put first. */
function withoutByteOrderMark(bytes: Buffer): Buffer {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}


function parseBody(text: string): ParsedBody | { problem: string } {
  try {
    return { value: parseJson(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : '';
    return { problem: /^Duplicate key/.test(reason) ? `invalid JSON (${reason.replace(/ encountered.*/, '')})` : 'not JSON' };
  }
}

/** The service's own words: the error string, the error object's message, or a message field. */
export function serviceMessage(body: JsonValue): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const error = body.error;
  if (typeof error === 'string' && error !== '') return error;
  if (isJsonObject(error) && Object.keys(error).length > 0) {
    for (const field of ['message', 'error_description', 'code', 'type']) {
      const value = error[field];
      if (typeof value === 'string' && value) return value;
    }
    return JSON.stringify(error);
  }
  for (const field of ['message', 'error_description', 'msg']) {
    const value = body[field];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

function errorCode(body: JsonValue): string | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.error)) return undefined;
  const code = body.error.code;
  return typeof code === 'string' ? code : undefined;
}

/** An `error` field that says something went wrong (not false, "", null, 0 or an empty object). */
function isRealError(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === 0) return false;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function isDraining(body: ParsedBody | undefined): boolean {
  return body !== undefined && isJsonObject(body.value) && typeof body.value.error === 'string' && /draining/i.test(body.value.error);
}

function isConnectionReset(error: unknown): boolean {
  const code = (error as SystemError | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return escapeControl(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat) || 'empty body';
}
