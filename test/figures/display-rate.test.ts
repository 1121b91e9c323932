// The display currency's rate: --rate dated today; the rate source asked once a day (its own date
// kept, a Friday's fixing on a Sunday), with from=CNY&to=CODE and never the gateway's key; a source
// that has no rate for the code, answers in error or cannot be reached gives no rate and one line
// why; conversions exact in decimals, to each currency's minor unit (property).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { converted, displayText, readRateReply } from '../../src/domain/display-currency.js';
import { displayRate } from '../../src/figures/display-rate.js';
import type { Transport } from '../../src/api/transport-types.js';
import { testContext } from '../helpers.js';

const SUNDAY = Date.UTC(2026, 10, 29, 10);
const asked: URL[] = [];
function source(reply: (url: URL) => { status: number; body: string }): Transport {
  return (async (request) => {
    asked.push(request.url);
    expect(request.headers.authorization).toBeUndefined();
    const { status, body } = reply(request.url);
    return { status, headers: { 'content-type': 'application/json' }, body: (async function* () { yield Buffer.from(body); })(), discard: () => undefined, reused: false, protocol: 'http/1.1' };
  }) as Transport;
}

describe('the display rate', () => {
  it('asks the source once a day and keeps the fixing\'s date (Friday\'s on a Sunday)', async () => {
    asked.length = 0;
    const transport = source((url) => ({ status: 200, body: `{"amount":1.0,"base":"CNY","date":"2026-11-27","rates":{"${url.searchParams.get('to')}":0.13781}}` }));
    const { ctx } = testContext({ transport, now: () => SUNDAY });
    const first = await displayRate(ctx, { currency: 'usd', source: 'https://rates.example/latest' });
    expect(first).toEqual({ currency: 'USD', rate: '0.13781', date: '2026-11-27', source: 'https://rates.example/latest' });
    expect(asked.map((u) => u.href)).toEqual(['https://rates.example/latest?from=CNY&to=USD']);
    expect(await displayRate(ctx, { currency: 'USD', source: 'https://rates.example/latest' })).toEqual(first);
    expect(asked).toHaveLength(1);
  });

  it('gives no rate, and says why, for a code the source lacks, an error, or no answer; refuses a code that is none', async () => {
    for (const [reply, why] of [
      [() => ({ status: 200, body: '{"base":"CNY","date":"2026-11-27","rates":{"EUR":0.13}}' }), /gave no rate: it has no rate for USD/],
      [() => ({ status: 503, body: '{}' }), /answered HTTP 503/],
      [() => ({ status: 200, body: '{"base":"EUR","date":"2026-11-27","rates":{"USD":1.05}}' }), /its base is "EUR", not CNY/],
    ] as const) {
      const { ctx, io } = testContext({ transport: source(reply), now: () => SUNDAY });
      expect(await displayRate(ctx, { currency: 'USD', source: 'https://rates.example/latest' })).toBeUndefined();
      expect(io.stderr).toMatch(why);
    }
    const offline: Transport = (async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }) as Transport;
    const { ctx, io } = testContext({ transport: offline, now: () => SUNDAY });
    expect(await displayRate(ctx, { currency: 'USD', source: 'https://rates.example/latest' })).toBeUndefined();
    expect(io.stderr).toMatch(/could not be read \(ECONNREFUSED\); amounts are in yuan alone/);
    await expect(displayRate(ctx, { currency: 'XQZ', source: 'https://rates.example/latest' })).rejects.toThrow(/is not an ISO 4217 currency code/);
    expect(await displayRate(ctx, { currency: 'EUR', rate: '0.129', source: '' })).toEqual({ currency: 'EUR', rate: '0.129', date: '2026-11-29', source: '--rate' });
  });

  it('converts exactly, rounded half up to each currency\'s minor unit (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 1, max: 10 ** 6 }), fc.constantFrom('USD', 'JPY', 'KWD', 'EUR'), (fen, rateMillionths, currency) => {
        const yuan = new Decimal(fen.toString()).div(100);
        const rate = new Decimal(rateMillionths).div(1_000_000).toFixed();
        const digits = currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2;
        const text = converted(yuan, { currency, rate, date: '2026-11-27', source: 'x' });
        expect(text).toBe(yuan.mul(rate).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits));
      }),
    );
    expect(displayText('1234.56', { currency: 'USD', rate: '0.1387', date: '', source: '' })).toBe('US$171.23');
    expect(displayText('1234.56', { currency: 'JPY', rate: '21.5', date: '', source: '' })).toBe('JP¥26,543');
    expect(readRateReply({ base: 'CNY', date: '2026-11-27', rates: { USD: '0' } }, 'USD')).toEqual({ why: 'its rate for USD is not a positive decimal' });
  });
});
