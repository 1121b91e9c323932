// A display currency as the built binary shows it, against a local replica of the rate source
// (the central bank's reference rates, Frankfurter's form): asked with from=CNY&to=CODE once a
// day, its Friday fixing shown with its own date on a Sunday; every yuan field unchanged beside the
// converted one; an unknown code and an offline source leave the yuan alone, with one line why.
import { type Server, createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';
import { runTally, tempDir } from '../helpers.js';

const SUNDAY = Date.UTC(2026, 10, 29, 9);
let sandbox: Sandbox;
let rates: Server;
let source = '';
const asked: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => SUNDAY });
  rates = createServer((req, res) => {
    asked.push(req.url ?? '');
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '';
    const known: Record<string, number> = { USD: 0.13781, JPY: 21.417 };
    res.writeHead(to in known ? 200 : 404, { 'content-type': 'application/json' });
    res.end(to in known ? `{"amount":1.0,"base":"CNY","date":"2026-11-27","rates":{"${to}":${known[to]}}}` : '{"message":"not found"}');
  });
  await new Promise<void>((resolve) => rates.listen(0, '127.0.0.1', resolve));
  source = `http://127.0.0.1:${(rates.address() as { port: number }).port}/latest`;
});
afterAll(async () => {
  await sandbox.close();
  rates.closeAllConnections();
  await new Promise((resolve) => rates.close(resolve));
});

const state = tempDir();
afterAll(() => state.remove());
const env = () => ({ PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_RATE_SOURCE: source });

describe('--currency: amounts also in another currency, at a dated rate', () => {
  it('asks the source once a day, shows the fixing\'s date, and keeps every yuan figure exactly', async () => {
    const json = await runTally(['balance', '--currency', 'USD', '--json'], { env: env(), now: SUNDAY });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as Record<string, unknown> & { display: unknown };
    const plain = JSON.parse((await runTally(['balance', '--json'], { env: env(), now: SUNDAY })).stdout) as Record<string, unknown>;
    expect(doc.display).toEqual({ currency: 'USD', rate: '0.13781', date: '2026-11-27', source });
    expect(doc.balance).toBe(plain.balance);
    expect(doc.balance_usd).toBe(new Decimal(plain.balance as string).mul('0.13781').toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2));
    const text = await runTally(['balance', '--currency', 'USD'], { env: env(), now: SUNDAY });
    expect(text.stdout).toMatch(/^Balance +¥[\d,]+\.\d\d ≈ US\$[\d,]+\.\d\d$/m);
    expect(text.stdout).toContain(`Amounts also in USD at 0.13781 USD per yuan (the rate of 2026-11-27, 127.0.0.1:${new URL(source).port}); the yuan are the figures.`);
    expect(asked.filter((u) => u.includes('to=USD'))).toEqual(['/latest?from=CNY&to=USD']);
    // JPY without decimals.
    expect((await runTally(['balance', '--currency', 'jpy'], { env: env(), now: SUNDAY })).stdout).toMatch(/^Balance +¥[\d,]+\.\d\d ≈ JP¥[\d,]+$/m);
  });

  it('leaves the yuan alone, saying why, for a code the source does not know and for a source that cannot be reached', async () => {
    const unknown = await runTally(['balance', '--currency', 'CHF'], { env: env(), now: SUNDAY });
    expect([unknown.code, unknown.stdout.includes('≈')]).toEqual([0, false]);
    expect(unknown.stderr).toMatch(/^warning: no CHF beside the yuan: the rate source 127\.0\.0\.1:\d+ answered HTTP 404; amounts are in yuan alone$/m);
    const offline = await runTally(['balance', '--currency', 'EUR'], { env: { ...env(), TALLY_RATE_SOURCE: 'http://127.0.0.1:9/latest' }, now: SUNDAY });
    expect([offline.code, offline.stdout.includes('≈')]).toEqual([0, false]);
    expect(offline.stderr).toMatch(/no EUR beside the yuan: the rate source 127\.0\.0\.1:9 could not be read/);
    const wrong = await runTally(['balance', '--currency', 'DOLLARS'], { env: env(), now: SUNDAY });
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('is not an ISO 4217 currency code')]);
    const rate = await runTally(['balance', '--currency', 'EUR', '--rate', '0.129', '--json'], { env: env(), now: SUNDAY });
    expect(JSON.parse(rate.stdout).display).toEqual({ currency: 'EUR', rate: '0.129', date: '2026-11-29', source: '--rate' });
  });
});

describe('a rate source that never answers', () => {
  it('costs a part of --timeout, never the figures: the yuan alone, and why', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(silent.address() as { port: number }).port}/latest`;
      const result = await runTally(['balance', '--currency', 'USD', '--timeout', '3'], { env: { ...env(), TALLY_RATE_SOURCE: at }, now: SUNDAY + 7 * 86_400_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Balance +¥[\d,]+\.\d\d$/m);
      expect(result.stderr).toMatch(/^warning: no USD beside the yuan: the rate source 127\.0\.0\.1:\d+ did not answer within (0\.\d|1) s; amounts are in yuan alone$/m);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('a budget set in another currency', () => {
  it("is compared in yuan at the day's rate, says so, and is not measured (never guessed) without one", async () => {
    const own = tempDir();
    try {
      const at = (extra: NodeJS.ProcessEnv = {}) => ({ ...env(), TALLY_CONFIG_DIR: own.path, ...extra });
      const set = await runTally(['budget', 'set', 'travel', '--amount', '5 usd', '--period', 'day', '--tz', 'UTC'], { env: at(), now: SUNDAY });
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toContain('Set budget "travel" of profile "default": US$5.00 a day, in UTC');
      expect(set.stdout).toContain("compared at the day's USD rate");
      const yuan = new Decimal(5).div('0.13781').toDecimalPlaces(8, Decimal.ROUND_HALF_UP).toFixed();
      // The same budget in yuan, at the amount the rate gives: the same spend, the same share.
      expect((await runTally(['budget', 'set', 'same', '--amount', yuan, '--period', 'day', '--tz', 'UTC'], { env: at(), now: SUNDAY })).code).toBe(0);
      const shown = await runTally(['budget', '--json'], { env: at(), now: SUNDAY });
      expect(shown.code, shown.stderr).toBe(0);
      const [travel, same] = (JSON.parse(shown.stdout) as { budgets: Record<string, unknown>[] }).budgets.sort((a, b) => String(b.name).localeCompare(String(a.name)));
      expect(travel).toMatchObject({ name: 'travel', amount: yuan, currency: 'CNY', set_in: { currency: 'USD', amount: '5', rate: '0.13781', rate_date: '2026-11-27', rate_source: source } });
      expect(travel!.spent).toMatch(/^\d+(\.\d+)?$/);
      expect({ spent: travel!.spent, percent: travel!.percent, state: travel!.state }).toEqual({ spent: same!.spent, percent: same!.percent, state: same!.state });
      const text = await runTally(['budget', 'travel'], { env: at(), now: SUNDAY });
      expect(text.stdout).toMatch(/travel: ¥36\.28 a day, in UTC, of the whole account's spend \(every key\) \(set as 5 USD, at 0\.13781 USD per yuan \(the rate of 2026-11-27\)\)/);
      // A gate on it says how it was compared.
      const gate = await runTally(['check', '--budget', 'travel:100%', '--json'], { env: at(), now: SUNDAY });
      expect(JSON.parse(gate.stdout).checks[0].detail).toContain('set as 5 USD, at 0.13781 USD per yuan (the rate of 2026-11-27)');
      // No rate today (the source offline, nothing kept for today): not measured, saying why; the gate fails closed.
      const tomorrow = SUNDAY + 86_400_000;
      const offline = at({ TALLY_RATE_SOURCE: 'http://127.0.0.1:9/latest' });
      const none = JSON.parse((await runTally(['budget', 'travel', '--json'], { env: offline, now: tomorrow })).stdout).budgets[0];
      expect(none).toMatchObject({ amount: '5', currency: 'USD', set_in: { currency: 'USD', amount: '5' }, spent: null, state: 'not measured' });
      expect(none.set_in.rate).toBeUndefined();
      expect(none.not_measured).toMatch(/^it is set in USD, and there is no rate for today: the rate source 127\.0\.0\.1:9 could not be read/);
      const closed = await runTally(['check', '--budget', 'travel', '--json'], { env: offline, now: tomorrow });
      expect(closed.code).toBe(1);
    } finally {
      own.remove();
    }
  });
});
