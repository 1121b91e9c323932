// The reconcile loop's matching: an entry of the gateway's log is known as one of the proxy's calls
// by an id the answer carried, else by its model and token counts, under whatever names the log
// uses; what it books replaces the estimate, what is none of the proxy's counts as the key's other
// spend, and an entry that lands before its answer ends waits for it.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { SpendLedger } from '../../src/proxy/ledger.js';
import { Reconciler } from '../../src/proxy/reconcile.js';
import { sessionOf } from '../../src/proxy/session.js';

const budget = { name: 'budget', amount: new Decimal('100'), before: new Decimal('0'), raise: '', scope: 'budget' as const };

function opened(ledger: SpendLedger, estimate: string): number {
  const r = ledger.reserve(new Decimal('10'));
  if (!('id' in r)) throw new Error('refused');
  ledger.settle(r.id, new Decimal(estimate));
  return r.id;
}

describe('the reconciler', () => {
  it('books by the request id where the log names one, whatever the field is called', () => {
    const ledger = new SpendLedger([budget]);
    const clock = { now: 1_000 };
    const reconcile = new Reconciler(ledger, () => clock.now);
    const a = opened(ledger, '0.5');
    const b = opened(ledger, '0.5');
    reconcile.ended(a, { ids: ['req-aaa'], model: 'm', input: 10, output: 20, at: 0 });
    reconcile.ended(b, { ids: ['req-bbb'], model: 'm', input: 10, output: 20, at: 0 });
    // Same usage, told apart by their ids: b's entry lands first.
    reconcile.landed([{ trace: 'req-bbb', model_name: 'm', p: 10, c: 20, fee: '0.61' }], { cost: 'fee' });
    reconcile.landed([{ trace: 'req-aaa', model_name: 'm', p: 10, c: 20, fee: '0.42' }], { cost: 'fee' });
    expect([ledger.booked.toFixed(), ledger.spent.toFixed(), ledger.others.toFixed(), reconcile.waiting]).toEqual(['1.03', '1.03', '0', 0]);
  });

  it('books by model and token counts where the log has no id the answer carried; counts the key\'s other calls apart', () => {
    const ledger = new SpendLedger([budget]);
    const reconcile = new Reconciler(ledger, () => 0);
    const a = opened(ledger, '0.30');
    reconcile.ended(a, { ids: [], model: 'deepseek-chat', input: 1200, output: 80, at: 0 });
    reconcile.landed(
      [
        { id: 7, model: 'deepseek-chat', prompt_tokens: 1200, completion_tokens: 81, cost: '0.31' },
        { id: 8, model: 'deepseek-chat', prompt_tokens: '1200', completion_tokens: '80', cost: '0.29' },
      ],
      { cost: 'cost' },
    );
    expect([ledger.booked.toFixed(), ledger.spent.toFixed(), ledger.others.toFixed()]).toEqual(['0.29', '0.29', '0.31']);
  });

  it('keeps an entry that landed before its answer ended, and moves it from the others when the call ends', () => {
    const ledger = new SpendLedger([budget]);
    const reconcile = new Reconciler(ledger, () => 0);
    reconcile.landed([{ rid: 'x1', cost: '2.5' }], { cost: 'cost' });
    expect(ledger.others.toFixed()).toBe('2.5');
    const a = opened(ledger, '2');
    reconcile.ended(a, { ids: ['x1'], at: 0 });
    expect([ledger.others.toFixed(), ledger.booked.toFixed(), ledger.spent.toFixed()]).toEqual(['0', '2.5', '2.5']);
  });

  it('never reads a charge it cannot read as money, and gives up on a call after a quarter hour, its estimate standing', () => {
    const ledger = new SpendLedger([budget]);
    const clock = { now: 0 };
    const reconcile = new Reconciler(ledger, () => clock.now);
    const a = opened(ledger, '0.7');
    reconcile.ended(a, { ids: ['q'], at: 0 });
    reconcile.landed([{ rid: 'q', cost: 0.9 }], { cost: 'cost' });
    expect([reconcile.unreadable, reconcile.waiting]).toEqual([1, 1]);
    clock.now = 16 * 60 * 1000;
    reconcile.landed([], {});
    expect([reconcile.waiting, ledger.spent.toFixed(), ledger.unbooked()]).toEqual([0, '0.7', []]);
  });
});

describe('a call\'s session', () => {
  it('is the id the client sends, by the names agents use, else Claude Code\'s metadata', () => {
    expect(sessionOf({ 'x-claude-code-session-id': 'c0ffee-1' }, {})).toBe('c0ffee-1');
    expect(sessionOf({ 'x-tally-session': 'mine', 'session-id': 'codex' }, {})).toBe('mine');
    expect(sessionOf({ 'session-id': 'codex-7' }, {})).toBe('codex-7');
    expect(sessionOf({}, { metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: '54c1eb09-bc4c' }) } })).toBe('54c1eb09-bc4c');
    expect(sessionOf({}, { metadata: { user_id: 'user_abc_account__session_57a121ec-f78c-48c3' } })).toBe('57a121ec-f78c-48c3');
    expect(sessionOf({ 'x-session-id': 'has space\u001b[31m' }, {})).toBeUndefined();
    expect(sessionOf({}, {})).toBeUndefined();
  });
});
