// The sandbox while it runs: --live makes a call every few seconds of its clock (the log, the
// usage, the balance and the key's daily spend grow), and the generation stand-in bills the key
// that asks, at the catalog's prices, in its log at once.
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { CATALOG, KEYS } from '../../src/sandbox/seed.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';

const T0 = Date.UTC(2026, 10, 25, 9, 30);
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const get = async (s: Sandbox, path: string, key = s.demoKey) => (await fetch(`${s.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<Record<string, unknown>>;
const logSince = async (s: Sandbox, from: number, key?: string) => ((await get(s, `/v1/open/logs?start=${Math.floor(from / 1000)}&end=${Math.floor(s.now() / 1000) + 1}&limit=1000`, key)).data as { id: string; cost: string }[]);

describe('tally sandbox --live', () => {
  it("makes a call every few seconds of the clock, in the log of the key it bills, and nothing without it", async () => {
    let now = T0;
    sandbox = await startSandbox({ now: () => now, liveEveryMs: 3000 });
    const keys = KEYS.filter((k) => k.account === 'acct-main' && k.share > 0);
    const count = async () => (await Promise.all(keys.map((k) => logSince(sandbox!, T0, k.secret)))).flat().filter((e) => e.id.startsWith('live_')).length;
    expect(await count()).toBe(0);
    now += 30_000;
    expect(await count()).toBe(10);
    now += 9_000;
    expect(await count()).toBe(13);
    const quiet = await startSandbox({ now: () => now });
    try {
      expect((await logSince(quiet, T0)).filter((e) => e.id.startsWith('live_'))).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});

describe('the generation stand-in', () => {
  it('bills the key that asks at the catalog prices: its log, its daily spend and the balance move at once', async () => {
    sandbox = await startSandbox({ now: () => T0 });
    const before = await get(sandbox, '/v1/open/balance');
    const answer = await fetch(`${sandbox.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.demoKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-opus-4.1', messages: [{ role: 'user', content: 'x'.repeat(400) }], max_tokens: 1000 }) });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(body.usage.completion_tokens).toBe(1000);
    const opus = CATALOG.find((m) => m.name === 'claude-opus-4.1')!;
    const cost = new Decimal(opus.input).mul(body.usage.prompt_tokens).plus(new Decimal(opus.output).mul(1000)).div(1000);
    const after = await get(sandbox, '/v1/open/balance');
    expect(new Decimal(before.balance as string).minus(after.balance as string).eq(cost)).toBe(true);
    const used = (b: Record<string, unknown>) => new Decimal((b.api_key as { daily_cost_used: string }).daily_cost_used);
    expect(used(after).minus(used(before)).eq(cost)).toBe(true);
    const logged = (await logSince(sandbox, T0 - 1000)).find((e) => e.id.startsWith('gen_'));
    expect(logged?.cost).toBe(cost.toFixed(8));
  });

  it("refuses a model the catalog does not have, or the key may not call, and a request without an API key, billing nothing", async () => {
    sandbox = await startSandbox({ now: () => T0 });
    const post = (key: string, model: string) => fetch(`${sandbox!.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ model, messages: [] }) });
    const ci = KEYS.find((k) => k.name === 'ci-runner')!.secret;
    expect((await post(sandbox.demoKey, 'gpt-9')).status).toBe(404);
    expect(((await (await post(ci, 'claude-opus-4.1')).json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
    expect((await post('sbx-sk-nobody-000000000000', 'gpt-5-mini')).status).toBe(401);
    expect((await logSince(sandbox, T0 - 1000)).filter((e) => e.id.startsWith('gen_'))).toEqual([]);
  });
});
