// tally logs --follow against a log that grows as the clock moves: each call once and in order
// across overlapping polls (and against a gateway that ignores the window), the pace the stated
// rate limit asks, failures said and waited out (longer each time) without stopping, a refused
// credential that ends it, Ctrl-C with its summary, and the live table on a terminal. Field names
// vary from test to test: the log's shape is not published.
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { backoffSeconds, pollSeconds } from '../../src/loops/follow.js';
import { followColumns, spanText } from '../../src/output/follow.js';
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

describe('what --follow writes', () => {
  // A page whose numbers a double cannot keep as sent, and text a terminal would act on.
  const page = '{"data":[{"id":123456789012345678901,"created_at":' + Math.floor(T0 / 1000 - 30) + ',"model":"gpt-5\\u202e\\u0085\\u200b","ratio":0.10,"tiny":1.5e-05,"cost":"0.10000000"}],"has_more":false}';
  const fixedLog = () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs') }).reply(200, page, { headers: { 'content-type': 'application/json' } }).persist();
    return gw;
  };

  it('on a pipe, each line byte for byte what logs --ndjson prints for the same entry', async () => {
    const interrupt = new AbortController();
    const followed = await runCommand(['logs', '--follow', '--since', '2m'], { transport: fixedLog().transport, env, now: () => T0, interrupt: interrupt.signal, sleep: async () => interrupt.abort(new Interrupted('interrupted')) });
    const listed = await runCommand(['logs', '--since', '2m', '--ndjson'], { transport: fixedLog().transport, env, now: () => T0 });
    expect(listed.code).toBe(0);
    expect(followed.stdout).toBe(listed.stdout);
    expect(followed.stdout).toBe('{"id":123456789012345678901,"created_at":' + Math.floor(T0 / 1000 - 30) + ',"model":"gpt-5\u202e\u0085\u200b","ratio":0.10,"tiny":1.5e-05,"cost":"0.10000000"}\n');
  });

  it('with --ndjson on a terminal, C1, bidirectional and zero-width characters escaped (the JSON still the same)', async () => {
    const interrupt = new AbortController();
    const followed = await runCommand(['logs', '--follow', '--since', '2m', '--ndjson'], { transport: fixedLog().transport, env, tty: true, now: () => T0, interrupt: interrupt.signal, sleep: async () => interrupt.abort(new Interrupted('interrupted')) });
    expect(followed.stdout).toContain('"model":"gpt-5\\u202e\\u0085\\u200b"');
    expect(followed.stdout).not.toMatch(/[\u0085\u200b\u202e]/);
    expect(JSON.parse(followed.stdout.trim()).model).toBe('gpt-5\u202e\u0085\u200b');
  });
});

describe('tally logs --follow against a log longer than the rate limit allows a minute', () => {
  it('prints the pages a cut poll read at once (each poll\'s calls oldest first), goes on from there, and prints every call once', async () => {
    let now = T0;
    const gw = mockGateway();
    // Six pages of ten calls, newest first; three requests a minute of the clock, then 429 until the minute turns.
    const entries = Array.from({ length: 60 }, (_, i) => ({ id: `c${String(59 - i).padStart(2, '0')}`, created_at: Math.floor(T0 / 1000) - 60 - i, model: 'gpt-5', cost: '0.01000000' }));
    const window = new Map<number, number>();
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
      .reply((options) => {
        const minute = Math.floor(now / 60_000);
        const used = (window.get(minute) ?? 0) + 1;
        window.set(minute, used);
        const reset = String(60 - Math.floor((now / 1000) % 60));
        if (used > 3) return { statusCode: 429, data: JSON.stringify({ error: { message: 'rate limit exceeded' } }), responseOptions: { headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'retry-after': reset } } };
        const cursor = Number(new URL(String(options.path), GW).searchParams.get('cursor') ?? '0');
        const data = entries.slice(cursor, cursor + 10);
        const next = cursor + 10 < entries.length ? String(cursor + 10) : null;
        return { statusCode: 200, data: JSON.stringify({ data, next_cursor: next, has_more: next !== null }), responseOptions: { headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': String(3 - used) } } };
      })
      .persist();
    const interrupt = new AbortController();
    const result = await runCommand(['logs', '--follow', '--since', '10m', '--timeout', '5'], {
      transport: gw.transport,
      env,
      now: () => now,
      interrupt: interrupt.signal,
      sleep: async (ms) => {
        now += ms;
        if (now - T0 > 20 * 60_000) interrupt.abort(new Interrupted('interrupted'));
      },
    });
    expect(result.code).toBe(130);
    const ids = result.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    // Every call once; the first poll's three pages (the newest 30 calls) are printed before the rest is read.
    expect([...ids].sort()).toEqual(entries.map((e) => e.id).sort());
    expect(ids.slice(0, 30)).toEqual(entries.slice(0, 30).map((e) => e.id).reverse());
    expect(result.stderr).toMatch(/the 30 log entries read so far are shown; the next poll goes on from there/);
  });

  it('counts every request of a poll against the pace', () => {
    expect(pollSeconds(1, 30, 1)).toBe(8);
    expect(pollSeconds(1, 30, 3)).toBe(24);
    expect(pollSeconds(5, undefined, 40)).toBe(5);
  });
});

describe('the live table on a narrow terminal', () => {
  const records = Array.from({ length: 6 }, (_, i) => ({ created_at: 1795800000 + i, model: i % 2 ? 'claude-sonnet-4.5-20250929' : 'deepseek-chat', status: 'success', prompt_tokens: 1000 + i, completion_tokens: 200 + i, cost: '0.01000000' }));
  const fields = { time: 'created_at', cost: 'cost' };

  it('drops a column that never varies first, then the counts; the time, the whole model and the cost stay', () => {
    expect(followColumns(records, fields, 80, false).map((c) => `${c.name}:${c.width}`)).toEqual(['created_at:10', 'model:26', 'prompt_tokens:13', 'cost:11']);
    expect(followColumns(records, fields, 60, false).map((c) => `${c.name}:${c.width}`)).toEqual(['created_at:10', 'model:26', 'cost:11']);
    expect(followColumns(records, fields, 40, false).map((c) => `${c.name}:${c.width}`)).toEqual(['created_at:10', 'model:15', 'cost:11']);
    expect(followColumns(records, fields, 200, false).map((c) => c.name)).toEqual(['created_at', 'model', 'status', 'prompt_tokens', 'completion_tokens', 'cost']);
  });

  it('says how long was followed in the unit that reads best', () => {
    expect([0.5, 1, 12, 95, 1800].map(spanText)).toEqual(['30 seconds', '60 seconds', '12 minutes', '1.6 hours', '30.0 hours']);
  });
});
