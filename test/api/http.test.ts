import { describe, expect, it } from 'vitest';
import { AuthError, Interrupted, NetworkError, RateLimitError, ServiceError, TimeoutError } from '../../src/errors.js';
import { isLosslessNumber } from '../../src/domain/json.js';
import { FAST_RETRY, GW, KEY, fakeSleep, mockGateway, testClient } from '../helpers.js';
import { HttpClient } from '../../src/api/http.js';
import type { Transport } from '../../src/api/transport.js';

const balancePath = '/v1/open/balance';
const native = { path: balancePath, family: 'native', auth: 'any' } as const;
const json = { headers: { 'content-type': 'application/json' } };

function errorWithCode(code: string): Error {
  return Object.assign(new Error(`simulated ${code}`), { code });
}

describe('HttpClient', () => {
  it('sends the key as a Bearer header and keeps numbers exact', async () => {
    const gw = mockGateway();
    let seen: Record<string, string> = {};
    gw.pool
      .intercept({ path: balancePath, method: 'GET' })
      .reply(200, (opts) => {
        seen = opts.headers as Record<string, string>;
        return '{"n": 12345678901234567890.12345678, "s": "1.50"}';
      }, json);
    const response = await testClient(gw.transport).requestJson(native);
    expect(seen.authorization).toBe(`Bearer ${KEY}`);
    const body = response.body as Record<string, unknown>;
    expect(isLosslessNumber(body.n)).toBe(true);
    expect((body.n as { value: string }).value).toBe('12345678901234567890.12345678');
    gw.done();
  });

  it('never sends the credential to the public catalog', async () => {
    const gw = mockGateway();
    let seen: Record<string, string> = {};
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, (opts) => {
      seen = opts.headers as Record<string, string>;
      return '{"success": true, "data": []}';
    }, json);
    await testClient(gw.transport).requestJson({ path: '/api/pricing', family: 'catalog', auth: 'none' });
    expect(seen.authorization).toBeUndefined();
    expect(seen['x-api-key']).toBeUndefined();
    gw.done();
  });

  it('keeps a base URL path prefix', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/gateway/v1/open/balance' }).reply(200, '{}', json);
    await testClient(gw.transport, { baseUrl: `${GW}/gateway` }).requestJson(native);
    gw.done();
  });

  it('turns a native 401 {error: object} into an AuthError with the service message', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(401, { error: { type: 'authentication_error', message: 'key revoked' } }, json);
    const error = await testClient(gw.transport).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    expect((error as AuthError).status).toBe(401);
    expect((error as Error).message).toBe('gw.test rejected the credential (HTTP 401): key revoked');
    expect((error as AuthError).hint).toBe('Check which credential is in use with `tally auth status`.');
  });

  it('turns a native 500 {error: string} into a ServiceError without retrying', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/usage' }).reply(500, { error: 'usage store unavailable' }, json);
    const error = await testClient(gw.transport).requestJson({ path: '/v1/open/usage', family: 'native', auth: 'api-key' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).exitCode).toBe(1);
    expect((error as Error).message).toBe('gw.test answered HTTP 500 for /v1/open/usage: usage store unavailable');
    gw.done();
  });

  it('treats a compatible 200 {error: object} as an error, never as data', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/dashboard/billing/usage' }).reply(200, { error: { message: 'billing backend unavailable', type: 'upstream_error' } }, json);
    const error = await testClient(gw.transport).requestJson({ path: '/dashboard/billing/usage', family: 'compat', auth: 'api-key' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(200);
    expect((error as Error).message).toBe('gw.test reported an error for /dashboard/billing/usage: billing backend unavailable');
  });

  it('treats a catalog success: false as an error', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, { success: false, message: 'rebuilding' }, json);
    const error = await testClient(gw.transport).requestJson({ path: '/api/pricing', family: 'catalog', auth: 'none' }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('gw.test reported success: false for /api/pricing: rebuilding');
  });

  it('does not retry 503 endpoint_unsupported_by_providers (the envelope)', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(503, {
      error: { type: 'service_unavailable', code: 'endpoint_unsupported_by_providers', message: 'no upstream', request_id: 'r1' },
      request_id: 'r1',
    }, json);
    const { waits, sleep } = fakeSleep();
    const error = await testClient(gw.transport, { sleep }).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as Error).message).toContain('no upstream serves this model on this endpoint (HTTP 503): no upstream; retrying will not help');
    expect(waits).toEqual([]);
    gw.done();
  });

  it.each([400, 403, 404, 413, 422])('sends exactly one request for HTTP %i', async (status) => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(status, { error: { code: 'x', message: `said ${status}` } }, json);
    const { waits, sleep } = fakeSleep();
    const error = await testClient(gw.transport, { sleep }).requestJson(native).catch((e: unknown) => e);
    expect((error as { status: number }).status).toBe(status);
    expect((error as Error).message).toContain(`said ${status}`);
    expect((error as { exitCode: number }).exitCode).toBe(status === 403 ? 3 : 1);
    expect(waits).toEqual([]);
    gw.done();
  });

  it('names 413 and 504 for what they are', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(413, { error: { code: 'request_body_too_large', message: 'too big' } }, json);
    gw.pool.intercept({ path: balancePath }).reply(504, { error: { code: 'stream_first_token_timeout', message: 'first token timeout' } }, json);
    const client = testClient(gw.transport);
    await expect(client.requestJson(native)).rejects.toThrow('request too large for gw.test (HTTP 413): too big');
    await expect(client.requestJson(native)).rejects.toThrow('gw.test timed out upstream (HTTP 504): first token timeout');
  });

  it('retries 503 instance draining with jittered backoff and then succeeds', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(503, { error: 'instance draining' }, json).times(2);
    gw.pool.intercept({ path: balancePath }).reply(200, { ok: true }, json);
    const { waits, sleep } = fakeSleep();
    const response = await testClient(gw.transport, { sleep }).requestJson(native);
    expect(response.status).toBe(200);
    // base 100 ms, doubled per attempt, jitter between half and the whole step (random 0.5).
    expect(waits).toEqual([75, 150]);
    gw.done();
  });

  it('gives up on persistent draining after exactly the bounded number of requests', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(503, { error: 'instance draining' }, json).times(4);
    const { waits, sleep } = fakeSleep();
    const error = await testClient(gw.transport, { sleep }).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as Error).message).toBe('gw.test answered HTTP 503 (instance draining) 4 times; try again shortly');
    expect(waits).toHaveLength(3);
    gw.done();
  });

  it('retries the models 429 {error: string, scope} and ends with a RateLimitError naming the limit', async () => {
    const gw = mockGateway();
    gw.pool
      .intercept({ path: '/v1/models' })
      .reply(429, { error: 'rate limit exceeded', scope: 'user' }, { headers: { 'x-ratelimit-limit': '240', 'x-ratelimit-remaining': '-3' } })
      .times(4);
    const { waits, sleep } = fakeSleep();
    const error = await testClient(gw.transport, { sleep }).requestJson({ path: '/v1/models', family: 'models', auth: 'api-key' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).exitCode).toBe(4);
    expect((error as Error).message).toBe('rate limited by gw.test (limit 240 requests per minute) after 4 attempts (4 requests to it this run): rate limit exceeded');
    // Each retry first waits out the exhausted window, then backs off: all bounded.
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...waits)).toBeLessThanOrEqual(8000);
    gw.done();
  });

  it('waits for a window that reopens within --timeout when patient (a digest, a fleet), and says how to wait one out that reopens after it', async () => {
    const patientClient = (transport: Transport, sleep: (ms: number, s: AbortSignal) => Promise<void>) =>
      new HttpClient({ baseUrl: new URL(GW), credential: { kind: 'api-key', secret: KEY }, transport, signal: new AbortController().signal, deadline: Date.now() + 30_000, timeoutSeconds: 30, patient: true, sleep, random: () => 0.5, now: Date.now, retry: FAST_RETRY });
    const soon = mockGateway();
    soon.pool.intercept({ path: '/v1/open/usage' }).reply(429, { error: { message: 'rate limit exceeded' } }, { headers: { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'retry-after': '5' } });
    soon.pool.intercept({ path: '/v1/open/usage' }).reply(200, { buckets: [], totals: {} });
    const waited = fakeSleep();
    expect((await patientClient(soon.transport, waited.sleep).requestJson({ path: '/v1/open/usage', family: 'native', auth: 'api-key' })).status).toBe(200);
    expect(waited.waits.some((ms) => ms >= 5000)).toBe(true);
    const late = mockGateway();
    late.pool.intercept({ path: '/v1/open/usage' }).reply(429, { error: { message: 'rate limit exceeded' } }, { headers: { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'retry-after': '52' } });
    const error = await patientClient(late.transport, fakeSleep().sleep).requestJson({ path: '/v1/open/usage', family: 'native', auth: 'api-key' }).catch((e: unknown) => e);
    // 52 seconds as the gateway says, and a second's margin.
    expect((error as Error).message).toBe('rate limited by gw.test (limit 3 requests per minute) after 1 attempt (1 request to it this run); its window reopens in 53s, after --timeout 30s runs out: a larger --timeout (--timeout 90) waits it out: rate limit exceeded');
  });

  it('honours a Retry-After up to its cap, and gives up when it would pass the deadline', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(429, {}, { headers: { 'retry-after': '2' } });
    gw.pool.intercept({ path: balancePath }).reply(200, {}, json);
    const { waits, sleep } = fakeSleep();
    await testClient(gw.transport, { sleep }).requestJson(native);
    expect(waits).toEqual([2000]);

    const late = mockGateway();
    late.pool.intercept({ path: balancePath }).reply(429, {}, { headers: { 'retry-after': '9' } });
    const slow = fakeSleep();
    const error = await testClient(late.transport, { sleep: slow.sleep, timeoutSeconds: 5 }).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(slow.waits).toEqual([]);
    late.done();
  });

  it('pauses the next request after X-RateLimit-Remaining <= 0 (negative included)', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, {}, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '-2' } });
    gw.pool.intercept({ path: balancePath }).reply(200, {}, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119' } });
    gw.pool.intercept({ path: balancePath }).reply(200, {}, json);
    const { waits, sleep } = fakeSleep();
    const client = testClient(gw.transport, { sleep });
    await client.requestJson(native);
    expect(waits).toEqual([]);
    await client.requestJson(native);
    expect(waits).toEqual([750]);
    await client.requestJson(native);
    expect(waits).toEqual([750]);
    gw.done();
  });

  it('paces by the limit the gateway states (X-RateLimit-Limit), not an assumed 120', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, {}, { headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' } });
    gw.pool.intercept({ path: balancePath }).reply(200, {}, json);
    const { waits, sleep } = fakeSleep();
    const client = testClient(gw.transport, { sleep });
    await client.requestJson(native);
    expect(client.rateLimit).toBe(10);
    await client.requestJson(native);
    // Ten a minute: one request's share is six seconds.
    expect(waits).toEqual([6000]);
    gw.done();
  });

  it.each([
    ['HTML', '<!doctype html><html><body>Bad gateway</body></html>', 'unexpected response from gw.test: not JSON (<!doctype html><html><body>Bad gateway</body></html>)'],
    ['truncated JSON', '{"currency": "CNY", "bal', 'unexpected response from gw.test: not JSON ({"currency": "CNY", "bal)'],
    ['a duplicate key', '{"balance": "1.00", "balance": "2.00"}', 'unexpected response from gw.test: invalid JSON (Duplicate key \'balance\') ({"balance": "1.00", "balance": "2.00"})'],
  ])('rejects %s with a short excerpt', async (_name, body, message) => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, body, { headers: { 'content-type': 'text/html' } });
    await expect(testClient(gw.transport).requestJson(native)).rejects.toThrow(message);
  });

  it('ignores a byte order mark before the JSON text, as RFC 8259 allows', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, '\ufeff{"currency": "CNY", "balance": "1.50"}', json);
    const response = await testClient(gw.transport).requestJson(native);
    expect(response.body).toEqual({ currency: 'CNY', balance: '1.50' });
    expect(response.text).toBe('{"currency": "CNY", "balance": "1.50"}');
    // The bytes kept (what a cache writes) are the JSON text's: a mark inside a cache file would spoil it.
    expect(response.bytes.toString('utf8')).toBe('{"currency": "CNY", "balance": "1.50"}');
  });

  it('knows an answer again when it comes with a byte order mark the cached bytes lack', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, '\ufeff{"currency": "CNY", "balance": "1.50"}', json);
    const answer = await testClient(gw.transport).requestJsonUnlessKnown(native, (bytes) => bytes.equals(Buffer.from('{"currency": "CNY", "balance": "1.50"}')));
    expect(answer).toMatchObject({ unchanged: true });
    expect('unchanged' in answer && answer.bytes.toString()).toBe('{"currency": "CNY", "balance": "1.50"}');
  });

  it('does not parse again an answer that is exactly the text the caller holds, and handles any other as usual', async () => {
    const known = '{"currency": "CNY", "balance": "1.50"}';
    const knownBytes = (bytes: Buffer) => bytes.equals(Buffer.from(known));
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, known, json);
    gw.pool.intercept({ path: balancePath }).reply(200, '{"currency": "CNY", "balance": "2.00"}', json);
    gw.pool.intercept({ path: balancePath }).reply(401, known, json);
    const client = testClient(gw.transport);
    expect(await client.requestJsonUnlessKnown(native, knownBytes)).toMatchObject({ unchanged: true, status: 200 });
    expect(await client.requestJsonUnlessKnown(native, knownBytes)).toMatchObject({ body: { currency: 'CNY', balance: '2.00' } });
    await expect(client.requestJsonUnlessKnown(native, knownBytes)).rejects.toThrow('gw.test rejected the credential (HTTP 401)');
    gw.done();
  });

  it('masks the key when an error body echoes it', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(401, { error: { message: `invalid key ${KEY}` } }, json);
    const error = (await testClient(gw.transport).requestJson(native).catch((e: unknown) => e)) as Error;
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('gw-sk-te…mnop');
  });

  it.each([
    ['ECONNREFUSED', 'cannot connect to gw.test: connection refused'],
    ['ENOTFOUND', 'cannot resolve gw.test'],
  ])('reports %s as a network error without retrying', async (code, message) => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).replyWithError(errorWithCode(code));
    const { waits, sleep } = fakeSleep();
    const error = await testClient(gw.transport, { sleep }).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(message);
    expect(waits).toEqual([]);
  });

  it('retries a connection reset', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).replyWithError(errorWithCode('ECONNRESET'));
    gw.pool.intercept({ path: balancePath }).reply(200, { ok: true }, json);
    const { waits, sleep } = fakeSleep();
    await testClient(gw.transport, { sleep }).requestJson(native);
    expect(waits).toEqual([75]);
    gw.done();
  });

  it('turns the command deadline into a TimeoutError and Ctrl-C into Interrupted', async () => {
    const hang = () => new Promise<never>((_resolve, reject) => setTimeout(() => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), 5));
    const deadline = new AbortController();
    deadline.abort(new Error('deadline'));
    const timeout = await testClient(hang, { signal: deadline.signal, timeoutSeconds: 7 }).requestJson(native).catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect((timeout as Error).message).toBe('timed out after 7s waiting for gw.test');

    const interrupt = new AbortController();
    interrupt.abort(new Interrupted('interrupted'));
    const stopped = await testClient(hang, { signal: interrupt.signal }).requestJson(native).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(Interrupted);
  });

  it('refuses a redirect to another origin and sends nothing there', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(302, '', { headers: { location: 'https://evil.test/steal' } });
    const error = await testClient(gw.transport).requestJson(native).catch((e: unknown) => e);
    expect((error as Error).message).toBe('gw.test redirected /v1/open/balance to another origin (https://evil.test); not followed, so the credential stays here');
    gw.done();
  });

  it('follows a same-origin redirect with the credential', async () => {
    const gw = mockGateway();
    let seen: Record<string, string> = {};
    gw.pool.intercept({ path: '/api/usage/token' }).reply(301, '', { headers: { location: '/api/usage/token/' } });
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(200, (opts) => {
      seen = opts.headers as Record<string, string>;
      return '{}';
    }, json);
    await testClient(gw.transport).requestJson({ path: '/api/usage/token', family: 'compat', auth: 'api-key' });
    expect(seen.authorization).toBe(`Bearer ${KEY}`);
    gw.done();
  });

  it('logs each request for --debug with the credential redacted', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, {}, { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '7', 'x-cache': 'MISS' } });
    const lines: string[] = [];
    await testClient(gw.transport, { log: (line) => lines.push(line) }).requestJson(native);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^GET https:\/\/gw\.test\/v1\/open\/balance \[authorization: Bearer \*\*\*\*\] -> 200 in \d+ ms \(x-ratelimit-limit: 120, x-ratelimit-remaining: 7, x-cache: MISS\)$/);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('aborts a response larger than the size cap', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: balancePath }).reply(200, `{"pad": "${'x'.repeat(4096)}"}`, json);
    const error = await testClient(gw.transport, { maxBodyBytes: 1024 }).requestJson(native).catch((e: unknown) => e);
    expect((error as Error).message).toBe('response from gw.test is larger than 1024 bytes; aborted');
  });

  it('says an API key is needed before sending a device token where it is not accepted', async () => {
    const gw = mockGateway();
    const client = testClient(gw.transport, { credential: { kind: 'device-token', secret: 'dt-secret-token-abcdef' } });
    const error = await client.requestJson({ path: '/v1/open/usage', family: 'native', auth: 'api-key' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toContain('/v1/open/usage needs an API key, and this profile is signed in with a device token');
    gw.done();
  });

  it('says how to log in when there is no credential', async () => {
    const gw = mockGateway();
    const error = await testClient(gw.transport, { credential: null }).requestJson(native).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toBe('no credential: run `tally login` (or `tally login --with-token` in scripts), or set TALLY_API_KEY');
  });
});
