import { afterEach, describe, expect, it, vi } from 'vitest';
import { Context } from '../src/context.js';
import { createTestIO } from '../src/io.js';

function context(interrupt: AbortSignal, timeout = 30) {
  return new Context({
    io: createTestIO({ stdoutIsTTY: false }),
    options: { json: false, csv: false, timeout, debug: false, demo: false, allowHttp: false, wide: false, exact: false },
    env: {},
    interrupt,
  });
}

describe('Context.signal: the deadline and Ctrl-C', () => {
  afterEach(() => vi.useRealTimers());

  it('aborts with the interrupt reason on Ctrl-C', () => {
    const interrupt = new AbortController();
    const ctx = context(interrupt.signal);
    expect(ctx.signal.aborted).toBe(false);
    const reason = new Error('interrupted');
    interrupt.abort(reason);
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe(reason);
  });

  it('aborts at once when Ctrl-C came before the deadline was renewed', () => {
    const interrupt = new AbortController();
    const ctx = context(interrupt.signal);
    interrupt.abort(new Error('interrupted'));
    ctx.renewDeadline();
    expect(ctx.signal.aborted).toBe(true);
  });

  it('aborts at --timeout, counted afresh by each renewal', () => {
    vi.useFakeTimers();
    const interrupt = new AbortController();
    const ctx = context(interrupt.signal, 5);
    vi.advanceTimersByTime(4_000);
    const first = ctx.signal;
    ctx.renewDeadline();
    ctx.renewDeadline();
    vi.advanceTimersByTime(4_000);
    expect(first.aborted).toBe(false);
    expect(ctx.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_001);
    expect(ctx.signal.aborted).toBe(true);
    expect((ctx.signal.reason as Error).message).toBe('deadline');
  });
});
