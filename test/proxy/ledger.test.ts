// The proxy's ledger and what an answer says it used: a call is reserved at its worst case before it
// goes, so whatever the order of calls and their ends, the spend counted never passes a limit while
// each call costs no more than its worst case (property); usage read from JSON answers and from
// streams of both interface families.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { SpendLedger } from '../../src/proxy/ledger.js';
import { StreamUsage, usageOf } from '../../src/proxy/usage.js';

const limit = (amount: string, before = '0', scope: 'proxy' | 'session' | 'budget' = 'proxy') => ({ name: `--max-spend ${amount}`, amount: new Decimal(amount), before: new Decimal(before), raise: 'raise it', scope });

describe('the limit ledger', () => {
  it('never lets the spend pass a limit, whatever the calls and the order they end in, while each costs at most its worst case (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 5_000 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 100 }), fc.boolean()), { maxLength: 60 }), (cap, before, calls) => {
        const ledger = new SpendLedger([limit(String(cap), String(before))]);
        const open: { id: number; cost: Decimal }[] = [];
        for (const [worst, share, endNow] of calls) {
          const r = ledger.reserve(new Decimal(worst));
          if ('id' in r) open.push({ id: r.id, cost: new Decimal(worst).mul(share).div(100) });
          else expect(r.refused.spent.plus(worst).gt(cap)).toBe(true);
          if (endNow && open.length) {
            const done = open.shift()!;
            ledger.settle(done.id, done.cost);
          }
          expect(ledger.spent.plus(ledger.inFlight).plus(before).lte(Math.max(cap, before))).toBe(true);
        }
        for (const done of open) ledger.settle(done.id, done.cost);
        expect(ledger.inFlight.isZero()).toBe(true);
      }),
    );
  });

  it('counts a call whose cost cannot be read at its worst case, and says so', () => {
    const ledger = new SpendLedger([limit('10')]);
    const a = ledger.reserve(new Decimal('4'));
    if (!('id' in a)) throw new Error('refused');
    ledger.settle(a.id, undefined);
    expect([ledger.spent.toFixed(), ledger.unpriced, ledger.calls]).toEqual(['4', 1, 1]);
    const b = ledger.reserve(new Decimal('6.00000001'));
    expect('refused' in b && b.refused.spent.toFixed()).toBe('4');
    expect(ledger.refused).toBe(1);
  });

  it('holds a session limit per session, the proxy\'s limit over all, and a budget over the key\'s other calls too', () => {
    const named = (amount: string, before: string, scope: 'proxy' | 'session' | 'budget') => ({ ...limit(amount, before, scope), name: scope });
    const ledger = new SpendLedger([named('10', '0', 'session'), named('25', '0', 'proxy')]);
    const call = (on: SpendLedger, worst: string, session?: string) => {
      const r = on.reserve(new Decimal(worst), session);
      if ('id' in r) on.settle(r.id, new Decimal(worst));
      return 'id' in r ? 'ok' : `${r.refused.limit.name} at ${r.refused.spent.toFixed()}`;
    };
    expect([call(ledger, '6', 'a'), call(ledger, '4', 'a'), call(ledger, '0.01', 'a')]).toEqual(['ok', 'ok', 'session at 10']);
    expect([call(ledger, '9', 'b'), call(ledger, '9'), call(ledger, '6')]).toEqual(['ok', 'proxy at 19', 'ok']);
    expect([ledger.sessionSpent('a').toFixed(), ledger.sessionSpent(undefined).toFixed(), ledger.spent.toFixed()]).toEqual(['10', '6', '25']);
    const budget = new SpendLedger([named('40', '10', 'budget')]);
    expect(call(budget, '20')).toBe('ok');
    budget.other(new Decimal('4'));
    expect([call(budget, '6.5'), call(budget, '6')]).toEqual(['budget at 34', 'ok']);
  });

  it('replaces an estimate by the charge the log booked, whether the charge lands before the answer ends or after', () => {
    const ledger = new SpendLedger([limit('100')]);
    const a = ledger.reserve(new Decimal('5'));
    const b = ledger.reserve(new Decimal('5'));
    if (!('id' in a) || !('id' in b)) throw new Error('refused');
    ledger.settle(a.id, new Decimal('1.5'));
    ledger.book(b.id, new Decimal('2.25'));
    expect([ledger.spent.toFixed(), ledger.inFlight.toFixed()]).toEqual(['1.5', '5']);
    ledger.settle(b.id, new Decimal('2'));
    ledger.book(a.id, new Decimal('1.75'));
    ledger.book(a.id, new Decimal('99'));
    expect([ledger.spent.toFixed(), ledger.estimated.toFixed(), ledger.booked.toFixed(), ledger.bookedCalls, ledger.inFlight.toFixed()]).toEqual(['4', '3.5', '4', 2, '0']);
  });
});

describe('what an answer used', () => {
  it('reads chat completions, responses and messages usage, cached tokens included', () => {
    expect(usageOf({ model: 'gpt-5', usage: { prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 100 } } })).toEqual({ model: 'gpt-5', input: 120, output: 30, cacheRead: 100 });
    expect(usageOf({ model: 'gpt-5', usage: { input_tokens: 9, output_tokens: 4, input_tokens_details: { cached_tokens: 0 } } })).toEqual({ model: 'gpt-5', input: 9, output: 4, cacheRead: 0 });
    expect(usageOf({ id: 'msg_1', model: 'claude-sonnet-4.5', usage: { input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 40, cache_creation_input_tokens: 12 } })).toEqual({ id: 'msg_1', model: 'claude-sonnet-4.5', input: 50, output: 7, cacheRead: 40, cacheBeside: true, cacheWrite: 12 });
    expect(usageOf({ usage: { prompt_tokens: 1.5, completion_tokens: '3' } })).toEqual({});
  });

  it('reads a stream as it passes, whatever its chunking: the last usage event, and a messages stream\'s start and last delta', () => {
    const chat = ['data: {"model":"gpt-5","choices":[{"delta":{"content":"hi"}}]}\n\n', 'data: {"model":"gpt-5","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":22}}\n\n', 'data: [DONE]\n\n'].join('');
    const messages = ['event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4.5","usage":{"input_tokens":300,"output_tokens":1}}}\n\n', 'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"hi"}}\n\n', 'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":57}}\n\n'].join('');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }), (cuts) => {
        for (const [text, expected] of [[chat, { model: 'gpt-5', input: 11, output: 22 }], [messages, { model: 'claude-sonnet-4.5', input: 300, output: 57 }]] as const) {
          const stream = new StreamUsage();
          const bytes = Buffer.from(text);
          let at = 0;
          for (const cut of cuts) {
            stream.push(bytes.subarray(at, Math.min(bytes.length, at + cut)));
            at = Math.min(bytes.length, at + cut);
          }
          stream.push(bytes.subarray(at));
          expect(stream.result()).toEqual(expected);
        }
      }),
    );
  });
});
