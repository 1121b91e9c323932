// The HTTP core: the only code that sends requests. It attaches the credential (only to the
// configured origin, never to the public catalog), follows redirects on that origin, and runs the
// retry loop; pacing (pacing.ts), decoding (decode.ts), error texts (error-texts.ts) and what is
// logged (redaction.ts) each have a module of their own.
import { AuthError, ServiceError, TallyError, TimeoutError } from '../errors.js';
import { DEFAULT_MAX_BODY, parseBody, readBody, refuseEncoded, withoutByteOrderMark } from './decode.js';
import { type GatewayVoice, abortError, checkBodyError, excerpt, httpError, isConnectionReset, isDraining, networkFailure, rateLimited } from './error-texts.js';
import { PATIENT_ATTEMPTS, Pacer } from './pacing.js';
import { RequestLog } from './redaction.js';
import type { Credential, HttpClientOptions, JsonRequest, JsonResponse, UnchangedResponse } from './request.js';
import { MAX_CONNECTIONS_PER_ORIGIN, type TogetherOptions, type TransportResponse } from './transport-types.js';

export type { Credential, CredentialKind, Family, HttpClientOptions, JsonRequest, JsonResponse, UnchangedResponse } from './request.js';
export { DEFAULT_RETRY, type RetryPolicy } from './pacing.js';
export { serviceMessage } from './error-texts.js';
const MAX_REDIRECTS = 5;
/** A request without an answer for this long is said on a terminal (waiting for HOST…). */
const SLOW_REQUEST_MS = 1000;

export class HttpClient {
  readonly baseUrl: URL;
  readonly credential: Credential | undefined;
  readonly #options: HttpClientOptions;
  readonly #pacer: Pacer;
  readonly #requestLog: RequestLog;
  readonly #voice: GatewayVoice;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.baseUrl = options.baseUrl;
    this.credential = options.credential;
    this.#pacer = new Pacer({ retry: options.retry, now: options.now, random: options.random, deadline: options.deadline });
    this.#requestLog = new RequestLog({ secret: options.credential?.secret, log: options.log, now: options.now });
    this.#voice = { host: this.host, baseUrl: this.baseUrl, clean: (text) => this.#requestLog.clean(text), signal: options.signal, timeoutSeconds: options.timeoutSeconds };
  }

  get host(): string {
    return this.baseUrl.host;
  }

  /** How far the gateway's clock is ahead of this machine's (ms; the Pacer reads its Date headers). */
  get clockOffsetMs(): number | undefined {
    return this.#pacer.clockOffsetMs;
  }

  /** Requests a minute the gateway allows, as its X-RateLimit-Limit said (undefined until it says). */
  get rateLimit(): number | undefined {
    return this.#pacer.rateLimit;
  }

  /** How many requests to the gateway go out at once: the transport's (Transport.together), within the rate limit (Pacer.together). */
  async together(options?: TogetherOptions): Promise<number> {
    return this.#pacer.together((await this.#options.transport.together?.(this.baseUrl, options)) ?? MAX_CONNECTIONS_PER_ORIGIN);
  }

  /** An error for a response whose shape is not what the interface promises. */
  unexpected(detail: string, status?: number): ServiceError {
    return new ServiceError(`unexpected response from ${this.host}: ${this.#requestLog.clean(detail)}`, { status });
  }

  async requestJson(request: JsonRequest): Promise<JsonResponse> {
    // Without a body known before there is no unchanged answer.
    return (await this.#request(request, undefined)) as JsonResponse;
  }

  /**
   * requestJson for a resource the caller already holds: a 2xx answer whose bytes `isKnown` says
   * are exactly those of a body accepted and cached before is not decoded, parsed or checked
   * again, which for a catalog of megabytes is most of the work.
   */
  async requestJsonUnlessKnown(request: JsonRequest, isKnown: (bytes: Buffer) => boolean): Promise<JsonResponse | UnchangedResponse> {
    return this.#request(request, isKnown);
  }

  #requestsMade = 0;

  /**
   * How a rate-limited request gave up, in words: after how many attempts, how many requests the
   * run made of the gateway, and, where the window reopens after --timeout, that a larger one waits it out.
   */
  #gaveUp(attempt: number, delayMs: number, outOfTime: boolean): string {
    const tries = `after ${attempt === 1 ? '1 attempt' : `${attempt} attempts`} (${this.#requestsMade} request${this.#requestsMade === 1 ? '' : 's'} to it this run)`;
    if (!outOfTime) return tries;
    const seconds = Math.ceil(delayMs / 1000);
    const enough = Math.ceil((this.#options.timeoutSeconds + seconds) / 10) * 10;
    return `${tries}; its window reopens in ${seconds}s, after --timeout ${this.#options.timeoutSeconds}s runs out: a larger --timeout (--timeout ${enough}) waits it out`;
  }

  async #request(request: JsonRequest, isKnown: ((bytes: Buffer) => boolean) | undefined): Promise<JsonResponse | UnchangedResponse> {
    this.#checkCredential(request);
    let url = this.#url(request);
    let redirects = 0;
    const patient = request.patient ?? this.#options.patient;
    for (let attempt = 1; ; attempt++) {
      if (this.#pacer.exhausted) {
        const reopens = this.#pacer.windowReopensIn();
        // Patient: wait for the window, when it reopens before the deadline (else pace as usual).
        if (patient && this.#pacer.fitsDeadline(reopens)) await this.#wait(reopens, request, `rate limit: the gateway's${this.#pacer.rateLimit ? ` ${this.#pacer.rateLimit} requests a minute` : ' limit'} used up, waiting for its window to reopen`);
        else await this.#wait(this.#pacer.pacingDelay(), request, `pacing: the rate limit${this.#pacer.rateLimit ? ` of ${this.#pacer.rateLimit} a minute` : ''} is used up`);
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
      this.#requestsMade++;
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
        const failure = networkFailure(this.#voice, error, url);
        this.#requestLog.log(`${request.method ?? 'GET'} ${url.href} -> ${failure.message} (${this.#options.now() - started} ms)`);
        if (isConnectionReset(error) && attempt < this.#pacer.retry.attempts) {
          await this.#wait(this.#pacer.backoff(this.#pacer.retry.transientBaseMs, attempt), request, `connection reset, retrying (${attempt + 1}/${this.#pacer.retry.attempts})`);
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
      this.#requestLog.response(request, url, response, started, this.#sendsCredential(request, url));
      this.#pacer.note(headers, started);

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
        received = await readBody(response, url, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY, (error) => networkFailure(this.#voice, error, url));
      } finally {
        endSlow();
      }
      const bytes = withoutByteOrderMark(received);
      if (isKnown !== undefined && status >= 200 && status < 300 && isKnown(bytes)) return { unchanged: true, status, headers, bytes };
      refuseEncoded(headers, this.host, request.path, status);
      const text = bytes.toString('utf8');
      const parsed = parseBody(text);
      const body = 'value' in parsed ? parsed : undefined;

      if (status === 429) {
        if (request.retryRateLimit === false) throw rateLimited(this.#voice, headers, body, text, `for ${request.path} (not retried: its limit is strict)`);
        // A long export (and a digest, a fleet) waits for the window to reopen, as often as the gateway's limit asks; a run of a few requests retries a few times.
        const delay = patient ? this.#pacer.windowReopensIn() : (this.#pacer.retryAfter(headers) ?? this.#pacer.backoff(this.#pacer.retry.rateLimitBaseMs, attempt));
        const attempts = patient ? PATIENT_ATTEMPTS : this.#pacer.retry.attempts;
        if (attempt >= attempts || !this.#pacer.fitsDeadline(delay)) throw rateLimited(this.#voice, headers, body, text, this.#gaveUp(attempt, delay, attempt < attempts));
        await this.#wait(delay, request, patient ? `rate limit: waiting for the gateway's window to reopen (${attempt}/${attempts})` : `rate limited, retrying (${attempt + 1}/${attempts})`);
        continue;
      }
      if (status === 503 && isDraining(body)) {
        if (attempt >= this.#pacer.retry.attempts || !this.#pacer.fitsDeadline(this.#pacer.retry.transientBaseMs)) {
          throw new ServiceError(
            `${this.host} answered HTTP 503 (instance draining) ${attempt} times; try again shortly`,
            { status },
          );
        }
        await this.#wait(this.#pacer.backoff(this.#pacer.retry.transientBaseMs, attempt), request, `the gateway is restarting (503 draining), retrying (${attempt + 1}/${this.#pacer.retry.attempts})`);
        continue;
      }
      if (request.acceptStatus?.(status) && body !== undefined) return { status, headers, body: body.value, text, bytes, url };
      if (status < 200 || status >= 300) throw httpError(this.#voice, status, body, text, request);
      if (body === undefined) throw this.unexpected(`${'problem' in parsed ? parsed.problem : 'not JSON'} (${excerpt(text)})`, status);
      checkBodyError(this.#voice, request, body.value, status);
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
    if (this.credential && this.#sendsCredential(request, url)) headers.authorization = `Bearer ${this.credential.secret}`;
    return headers;
  }

  /** The credential goes to the configured origin only, and never to the public catalog (whatever path led there: a redirect, a continuation). */
  #sendsCredential(request: JsonRequest, url: URL): boolean {
    return request.auth !== 'none' && this.credential !== undefined && url.origin === this.baseUrl.origin && !/\/api\/pricing\/?$/.test(url.pathname);
  }

  async #wait(ms: number, request: JsonRequest, reason: string): Promise<void> {
    if (ms <= 0) return;
    this.#requestLog.log(`waiting ${ms} ms before ${request.method ?? 'GET'} ${request.path}`);
    const seconds = Math.max(1, Math.round(ms / 1000));
    this.#options.onWait?.(`${this.host}: ${reason.replace('retrying', `retrying in ${seconds} s`)}…`);
    try {
      await this.#options.sleep(ms, this.#options.signal);
    } catch (error) {
      throw abortError(this.#voice, error);
    } finally {
      this.#options.onWait?.(undefined);
    }
  }
}
