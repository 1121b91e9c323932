// tally logs --follow against a log that grows as the clock moves: each call once and in order
// across overlapping polls (and against a gateway that ignores the window), the pace the stated
// rate limit asks, failures said and waited out (longer each time) without stopping, a refused
// credential that ends it, Ctrl-C with its summary, and the live table on a terminal. Field names
// vary from test to test: the log's shape is not published.
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { backoffSeconds, pollSeconds } from '../../src/cli/follow.js';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const T0 = Date.UTC(2026, 10, 27, 9, 0);

interface Call {
  at: number;
  id: string;
  cost: string;
}

interface LogShape {
  /** The record as this gateway writes it. */
  record: (c: Call) => Record<string, unknown>;
  /** Whether it answers only the window asked (else its latest entries, whatever the window). */
  honoursWindow: boolean;
  /** Whose calls the log says they are, when it says. */
  scope?: string;
}

const SHAPES: Record<string, LogShape> = {
  native: { record: (c) => ({ id: c.id, created_at: Math.floor(c.at / 1000), model: 'gpt-5', prompt_tokens: 10, cost: c.cost }), honoursWindow: true, scope: 'key' },
  other: { record: (c) => ({ request_id: c.id, ts: c.at, model_name: 'glm-4.6', charge: c.cost, status_code: 200 }), honoursWindow: false },
};

/**
 * A gateway whose log holds `calls` that have happened by the clock's time; `faults` are answered
 * instead, one per request, while they last.
 */
function growingLog(calls: Call[], shape: LogShape, clock: () => number, faults: { status: number; headers?: Record<string, string> }[] = [], rateLimit?: number) {
  const gw = mockGateway();
  const asked: { start: number; end: number }[] = [];
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
    .reply((options) => {
      const url = new URL(String(options.path), GW);
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      asked.push({ start, end });
      const fault = faults.shift();
      if (fault) return { statusCode: fault.status, data: JSON.stringify({ error: { message: 'slow down' } }), responseOptions: { headers: { 'content-type': 'application/json', ...fault.headers } } };
      const now = clock();
      const visible = calls.filter((c) => c.at <= now && (!shape.honoursWindow || (c.at / 1000 >= start && c.at / 1000 < end)));
      // Newest first, as logs usually are.
      const data = visible.sort((a, b) => b.at - a.at).slice(0, 50).map(shape.record);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(rateLimit ? { 'x-ratelimit-limit': String(rateLimit), 'x-ratelimit-remaining': String(rateLimit - 1) } : {}) };
      return { statusCode: 200, data: JSON.stringify({ data, has_more: false, ...(shape.scope ? { scope: shape.scope } : {}) }), responseOptions: { headers } };
    })
    .persist();
  return { gw, asked };
}

/** Runs --follow for `polls` polls (the clock moves by each sleep), then Ctrl-C. */
async function follow(args: string[], setup: (clock: () => number) => ReturnType<typeof growingLog>, options: { polls: number; tty?: boolean }) {
  let now = T0;
  const clock = () => now;
  const { gw, asked } = setup(clock);
  const interrupt = new AbortController();
  const sleeps: number[] = [];
  const result = await runCommand(['logs', '--follow', ...args], {
    transport: gw.transport,
    env,
    tty: options.tty,
    width: 100,
    now: clock,
    interrupt: interrupt.signal,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
      if (sleeps.length >= options.polls) interrupt.abort(new Interrupted('interrupted'));
    },
  });
  return { ...result, sleeps, asked };
}

// Calls every 7 seconds from 2 minutes before T0 to 2 minutes after; one lands late (its time is 3 s before it shows).
const calls: Call[] = Array.from({ length: 35 }, (_, i) => ({ at: T0 - 120_000 + i * 7000, id: `c${String(i).padStart(3, '0')}`, cost: `0.0${String(i % 10)}100000` }));

describe.each(Object.entries(SHAPES))('tally logs --follow (%s log)', (_, shape) => {
  it('prints each call once, oldest first, as NDJSON on a pipe, from --since on; Ctrl-C exits 130 with a summary', async () => {
    const result = await follow(['--since', '1m', '--interval', '5'], (clock) => growingLog(calls, shape, clock), { polls: 30 });
    expect(result.code).toBe(130);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const id = (r: Record<string, unknown>) => String(r.id ?? r.request_id);
    const expected = calls.filter((c) => c.at >= T0 - 60_000 && c.at <= T0 + 150_000);
    expect(lines.map(id)).toEqual(expected.map((c) => c.id));
    expect(new Set(lines.map(id)).size).toBe(lines.length);
    // The summary: every call followed and their exact sum.
    const sum = expected.reduce((s, c) => s + Math.round(Number(c.cost) * 1e8), 0) / 1e8;
    expect(result.stderr).toMatch(new RegExp(`stopped following the log: ${expected.length} calls · ¥${sum.toFixed(2)}`));
    expect(result.sleeps.every((ms) => ms === 5000)).toBe(true);
  });
});

describe('tally logs --follow, the pace and failures', () => {
  it('polls no faster than a quarter of the rate limit the gateway states', async () => {
    const result = await follow([], (clock) => growingLog(calls, SHAPES.native!, clock, [], 20), { polls: 3 });
    expect(result.sleeps).toEqual([12_000, 12_000, 12_000]);
  });

  it('says a failure on stderr, waits longer each time, and goes on when the gateway answers again', async () => {
    const faults = [{ status: 429, headers: { 'x-ratelimit-remaining': '0' } }, { status: 502 }, { status: 502 }];
    const result = await follow(['--since', '2m'], (clock) => growingLog(calls, SHAPES.native!, clock, faults), { polls: 8 });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/rate limited/);
    expect(result.stderr).toMatch(/trying again in \d+s/);
    expect(result.stderr).toMatch(/reading the log again/);
    // Backed off: each wait after a failure longer than the one before, up to a minute.
    const failed = result.sleeps.slice(0, 3);
    expect(failed[1]!).toBeGreaterThan(failed[0]!);
    expect(Math.max(...result.sleeps)).toBeLessThanOrEqual(60_000);
    expect(result.stdout.trim().split('\n').length).toBeGreaterThan(10);
  });

  it('ends with exit 3 when the gateway refuses the key (asking again would not help)', async () => {
    const result = await follow([], (clock) => growingLog(calls, SHAPES.native!, clock, [{ status: 401 }]), { polls: 5 });
    expect(result.code).toBe(3);
  });

  it('refuses flags that do not go with it', async () => {
    for (const extra of [['--all'], ['--until', 'now'], ['--csv'], ['--resume', 'x']]) {
      const result = await runCommand(['logs', '--follow', ...extra], { env });
      expect(result.code, extra.join(' ')).toBe(2);
    }
    expect((await runCommand(['logs', '--interval', '5'], { env })).code).toBe(2);
    expect((await runCommand(['logs', '--follow', '--interval', '0'], { env })).code).toBe(2);
  });

  it('writes NDJSON on a terminal too when asked (--ndjson)', async () => {
    const result = await follow(['--since', '2m', '--ndjson'], (clock) => growingLog(calls, SHAPES.native!, clock), { polls: 2, tty: true });
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('cost');
  });

  it("says whose calls they are where the log says so: on the live line and in the summary", async () => {
    const result = await follow(['--since', '2m'], (clock) => growingLog(calls, SHAPES.native!, clock), { polls: 2, tty: true });
    expect(result.stdout).toMatch(/since 2026-11-27 08:58 · this key's calls · every 5s/);
    expect(result.stderr).toMatch(/\(this key's calls, as the gateway states\)$/m);
  });

  it('shows a live table with the running total and the rate of spend on a terminal', async () => {
    const result = await follow(['--since', '2m'], (clock) => growingLog(calls, SHAPES.other!, clock), { polls: 4, tty: true });
    expect(result.stdout).toMatch(/ts\s+model_name\s+.*charge \(¥\)/);
    expect(result.stdout).toMatch(/08:58:00\s+glm-4\.6/);
    expect(result.stdout).toMatch(/\d+ calls · ¥\d+\.\d\d · ¥\d+\.\d{4} a minute · since 2026-11-27 08:58 · every 5s/);
  });
});

describe('the pace rule', () => {
  it('is the floor, or a quarter of the stated limit when that is slower; failures double it up to a minute', () => {
    expect(pollSeconds(5, undefined)).toBe(5);
    expect(pollSeconds(5, 120)).toBe(5);
    expect(pollSeconds(1, 30)).toBe(8);
    expect([1, 2, 3, 4, 10].map((n) => backoffSeconds(5, n))).toEqual([10, 20, 40, 60, 60]);
  });
});

describe('tally logs --follow against a log longer than a poll reads', () => {
  it('reads at most 50 pages a poll, says so once, and goes on', async () => {
    const gw = mockGateway();
    let asked = 0;
    // A gateway that ignores the window and pages by cursor through an endless log.
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
      .reply((options) => {
        asked++;
        const url = new URL(String(options.path), GW);
        const page = Number(url.searchParams.get('cursor') ?? '0');
        const data = Array.from({ length: 2 }, (_, i) => ({ id: `p${page}-${i}`, created_at: Math.floor(T0 / 1000) - page * 60 - i, cost: '0.01000000' }));
        return { statusCode: 200, data: JSON.stringify({ data, next_cursor: String(page + 1) }), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const interrupt = new AbortController();
    let sleeps = 0;
    const result = await runCommand(['logs', '--follow'], {
      transport: gw.transport,
      env,
      now: () => T0,
      interrupt: interrupt.signal,
      sleep: async () => {
        if (++sleeps >= 2) interrupt.abort(new Interrupted('interrupted'));
      },
    });
    expect(result.code).toBe(130);
    expect(asked).toBe(100);
    expect(result.stderr.match(/holds more than 50 pages/g)).toHaveLength(1);
  });
});
