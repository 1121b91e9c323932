// The parts of the HTTP core, each alone: pacing, decoding, error texts, redaction.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthError, Interrupted, NetworkError, RateLimitError, ServiceError, TimeoutError } from '../../src/errors.js';
import { DEFAULT_RETRY, Pacer } from '../../src/api/pacing.js';
import { parseBody, readBody, refuseEncoded, withoutByteOrderMark } from '../../src/api/decode.js';
import { type GatewayVoice, abortError, checkBodyError, httpError, networkFailure, rateLimited, serviceMessage } from '../../src/api/error-texts.js';
import { RequestLog } from '../../src/api/redaction.js';
import type { TransportResponse } from '../../src/api/transport.js';
import { type JsonValue, jsonText, parseJson } from '../../src/domain/json.js';

describe('Pacer', () => {
  const pacer = (now = () => 1_000_000, random = () => 1, deadline = Number.POSITIVE_INFINITY) => new Pacer({ now, random, deadline });

  it('waits for the window the gateway states: a minute from the first request seen in it', () => {
    let now = 1_000_000;
    const p = pacer(() => now);
    p.note({ 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119' }, 1_000_000);
    expect(p.rateLimit).toBe(120);
    expect(p.exhausted).toBe(false);
    now = 1_030_000;
    p.note({ 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '0' }, now);
    expect(p.exhausted).toBe(true);
    // Opened at 1_000_000: it reopens 60 s later, with a 500 ms margin.
    expect(p.windowReopensIn()).toBe(30_500);
  });

  it('paces a used-up limit at one request\'s share of the minute, never below the base backoff, never past the cap', () => {
    const p = pacer();
    p.note({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' }, 0);
    expect(p.pacingDelay()).toBe(DEFAULT_RETRY.maxRetryAfterMs);
    const q = pacer();
    q.note({ 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '0' }, 0);
    expect(q.pacingDelay()).toBe(DEFAULT_RETRY.rateLimitBaseMs);
  });

  it('ignores limits that are not sound numbers', () => {
    const p = pacer();
    for (const limit of ['-1', '0', '1e9', 'many', '2.5']) p.note({ 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': '5' }, 0);
    expect(p.rateLimit).toBeUndefined();
    expect(p.exhausted).toBe(false);
  });

  it('honours a Retry-After in seconds or as a date, up to the cap; a zero, negative or unreadable one is left to the backoff', () => {
    const p = pacer(() => Date.parse('2026-11-20T10:00:00Z'));
    expect(p.retryAfter({ 'retry-after': '2' })).toBe(2000);
    expect(p.retryAfter({ 'retry-after': 'Fri, 20 Nov 2026 10:00:03 GMT' })).toBe(3000);
    expect(p.retryAfter({ 'retry-after': '3600' })).toBe(DEFAULT_RETRY.maxRetryAfterMs);
    for (const value of ['0', '-5', 'soon', '', undefined]) expect(p.retryAfter({ 'retry-after': value })).toBeUndefined();
  });

  it('backs off exponentially with jitter between half and the whole step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), (base, attempt, r) => {
        const step = base * 2 ** (attempt - 1);
        const delay = pacer(undefined, () => r).backoff(base, attempt);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(step / 2));
        expect(delay).toBeLessThanOrEqual(Math.ceil(step));
      }),
    );
  });

  it('says whether a wait ends before the deadline', () => {
    const p = pacer(() => 1000, undefined, 5000);
    expect(p.fitsDeadline(3999)).toBe(true);
    expect(p.fitsDeadline(4000)).toBe(false);
  });
});

function response(chunks: string[], status = 200): TransportResponse & { discarded: boolean } {
  const r = {
    status,
    headers: {},
    body: Readable.from(chunks.map((c) => new Uint8Array(Buffer.from(c)))),
    discarded: false,
    discard() {
      r.discarded = true;
    },
  };
  return r as unknown as TransportResponse & { discarded: boolean };
}

describe('decoding', () => {
  const url = new URL('https://gw.test/v1/open/balance');
  const failure = (error: unknown) => new NetworkError(`read failed: ${(error as Error).message}`);

  it('reads the whole body within the limit, and refuses one past it (discarding the rest)', async () => {
    expect((await readBody(response(['{"a":', '1}']), url, 100, failure)).toString()).toBe('{"a":1}');
    const big = response(['x'.repeat(60), 'y'.repeat(60)]);
    await expect(readBody(big, url, 100, failure)).rejects.toSatisfy((e) => e instanceof ServiceError && e.message === 'response from gw.test is larger than 100 bytes; aborted');
    expect(big.discarded).toBe(true);
  });

  it('turns a failed read into the failure it is given', async () => {
    const broken = { status: 200, headers: {}, body: (async function* () { yield new Uint8Array([123]); throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }); })(), discard() {} };
    await expect(readBody(broken as unknown as TransportResponse, url, 100, failure)).rejects.toThrow('read failed: socket hang up');
  });

  it('drops a byte order mark, and nothing else', () => {
    expect(withoutByteOrderMark(Buffer.from('\ufeff{}')).toString()).toBe('{}');
    expect(withoutByteOrderMark(Buffer.from('{}')).toString()).toBe('{}');
  });

  it('parses losslessly, and names duplicate keys and what is not JSON', () => {
    const parsed = parseBody('{"n": 0.1000000000000000055511151231257827}');
    expect('value' in parsed && jsonText((parsed.value as Record<string, JsonValue>).n)).toBe('0.1000000000000000055511151231257827');
    expect(parseBody('{"a": 1, "a": 2}')).toEqual({ problem: expect.stringMatching(/^invalid JSON \(Duplicate key/) });
    expect(parseBody('<html>')).toEqual({ problem: 'not JSON' });
  });

  it('names a compressed body, without echoing an odd encoding', () => {
    expect(() => refuseEncoded({ 'content-encoding': 'gzip' }, 'gw.test', '/v1/open/usage', 200)).toThrow('gw.test sent a gzip body for /v1/open/usage, though tally sent no Accept-Encoding; it cannot be read');
    expect(() => refuseEncoded({ 'content-encoding': '\u001b[31mx' }, 'gw.test', '/p', 200)).toThrow('gw.test sent a compressed body for /p');
    expect(() => refuseEncoded({ 'content-encoding': 'identity' }, 'gw.test', '/p', 200)).not.toThrow();
  });
});

describe('error texts', () => {
  const controller = new AbortController();
  const voice = (baseUrl = 'https://gw.test', signal: AbortSignal = controller.signal): GatewayVoice => ({ host: new URL(baseUrl).host, baseUrl: new URL(baseUrl), clean: (t) => t.replaceAll('sk-secret', '****').replace(/\u001b/g, '\\u001b'), signal, timeoutSeconds: 7 });
  const request = { path: '/v1/open/usage', family: 'native', auth: 'api-key' } as const;
  const body = (text: string) => ({ value: parseJson(text) });

  it('reads the service\'s own words from each error shape', () => {
    expect(serviceMessage(parseJson('{"error": "quota exceeded"}'))).toBe('quota exceeded');
    expect(serviceMessage(parseJson('{"error": {"message": "bad key", "code": "x"}}'))).toBe('bad key');
    expect(serviceMessage(parseJson('{"success": false, "message": "no such token"}'))).toBe('no such token');
    expect(serviceMessage(parseJson('{"error": {}}'))).toBeUndefined();
    expect(serviceMessage(parseJson('[1]'))).toBeUndefined();
  });

  it('maps statuses to typed errors with what to do, redacted and escaped', () => {
    const rejected = httpError(voice(), 401, body('{"error": "bad sk-secret"}'), '', request);
    expect(rejected).toBeInstanceOf(AuthError);
    expect(rejected.message).toBe('gw.test rejected the credential (HTTP 401): bad ****');
    expect(httpError(voice(), 403, undefined, '', request)).toBeInstanceOf(AuthError);
    const notFound = httpError(voice('https://gw.test/v1'), 404, undefined, '', request) as ServiceError;
    expect(notFound.message).toBe('gw.test answered HTTP 404 for /v1/v1/open/usage');
    expect(notFound.hint).toMatch(/the base URL is the gateway's root: try https:\/\/gw.test /);
    expect(httpError(voice(), 500, undefined, '<html>\u001b[2J oops</html>', request).message).toBe('gw.test answered HTTP 500 for /v1/open/usage (<html>\\u001b[2J oops</html>)');
  });

  it('treats 200 bodies that say error as errors, and those that say none as answers', () => {
    expect(() => checkBodyError(voice(), request, parseJson('{"error": {"message": "upstream down"}}'), 200)).toThrow('gw.test reported an error for /v1/open/usage: upstream down');
    expect(() => checkBodyError(voice(), request, parseJson('{"success": false, "message": "nope"}'), 200)).toThrow('gw.test reported success: false for /v1/open/usage: nope');
    for (const fine of ['{"error": null}', '{"error": false}', '{"error": ""}', '{"error": {}}', '{"success": true}', '{"code": 0}']) {
      expect(() => checkBodyError(voice(), request, parseJson(fine), 200)).not.toThrow();
    }
  });

  it('says the limit and the service\'s words on a 429', () => {
    const error = rateLimited(voice(), { 'x-ratelimit-limit': '120' }, body('{"message": "slow down"}'), '', 'after 4 attempts');
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe('rate limited by gw.test (limit 120 requests per minute) after 4 attempts: slow down');
  });

  it('names network failures by their cause, and a proxy as the proxy', () => {
    const url = new URL('https://gw.test/v1/open/balance');
    const failure = (code: string, extra: object = {}) => networkFailure(voice(), Object.assign(new Error(code), { code, ...extra }), url);
    expect(failure('ECONNREFUSED').message).toBe('cannot connect to gw.test: connection refused');
    expect(failure('ENOTFOUND').message).toBe('cannot resolve gw.test');
    expect(failure('CERT_HAS_EXPIRED').message).toBe('the TLS certificate of gw.test has expired');
    expect(failure('SELF_SIGNED_CERT_IN_CHAIN').message).toMatch(/TALLY_CA_FILE/);
    expect(failure('ECONNREFUSED', { proxy: 'http://proxy.test:3128' }).message).toBe('cannot reach gw.test through the proxy http://proxy.test:3128 (HTTPS_PROXY/HTTP_PROXY): connection refused');
  });

  it('tells a deadline from Ctrl-C', () => {
    const deadline = new AbortController();
    deadline.abort(new Error('deadline'));
    const timedOut = abortError(voice(undefined, deadline.signal), new Error('aborted'));
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(timedOut.message).toBe('timed out after 7s waiting for gw.test');
    const interrupted = new AbortController();
    const reason = new Interrupted('interrupted');
    interrupted.abort(reason);
    expect(networkFailure(voice(undefined, interrupted.signal), new Error('aborted'), new URL('https://gw.test/'))).toBe(reason);
  });
});

describe('RequestLog', () => {
  it('redacts the credential and escapes control characters in what it cleans and logs', () => {
    const lines: string[] = [];
    const log = new RequestLog({ secret: 'sk-live-0123456789abcdef', log: (l) => lines.push(l), now: () => 0 });
    expect(log.clean('key sk-live-0123456789abcdef \u001b[31mred')).not.toMatch(/sk-live-0123456789abcdef|\u001b/);
    log.log('GET https://gw.test/?k=sk-live-0123456789abcdef');
    expect(lines.join('\n')).not.toContain('sk-live-0123456789abcdef');
  });

  it('logs a response with the headers tally reads, never echoing their bytes, and the credential only as sent or not', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new RequestLog({ secret: 'sk-x', log: (l) => lines.push(l), now: () => now });
    now = 42;
    const r = { status: 200, reused: true, headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '\u001b[2Jlots', 'x-cache': 'hit', 'retry-after': 'soon' } } as unknown as TransportResponse;
    log.response({ path: '/v1/open/usage', family: 'native', auth: 'api-key' }, new URL('https://gw.test/v1/open/usage'), r, 0, true);
    log.response({ path: '/api/pricing', family: 'catalog', auth: 'none' }, new URL('https://gw.test/api/pricing'), r, 0, false);
    expect(lines).toEqual([
      'GET https://gw.test/v1/open/usage [authorization: Bearer ****] -> 200 in 42 ms, connection reused (x-ratelimit-limit: 120, x-ratelimit-remaining: unrecognised, retry-after: unrecognised, x-cache: HIT)',
      'GET https://gw.test/api/pricing -> 200 in 42 ms, connection reused (x-ratelimit-limit: 120, x-ratelimit-remaining: unrecognised, retry-after: unrecognised, x-cache: HIT)',
    ]);
  });

  it('writes nothing without a sink', () => {
    const log = new RequestLog({ secret: undefined, now: () => 0 });
    expect(() => log.log('x')).not.toThrow();
  });
});
