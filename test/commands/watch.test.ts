// --watch: refreshes until Ctrl-C, one JSON document per line with --json, a redrawn view with a
// header on a terminal; a failed refresh keeps the last good view.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const json = { headers: { 'content-type': 'application/json' } };
const balance = (amount: string) => `{"currency": "CNY", "balance": "${amount}", "lifetime_spend": "1.00", "plan": {"has_active_plan": false}, "api_key": null}`;

/** Runs a watch that is interrupted (Ctrl-C) after `refreshes` refreshes. */
async function watch(argv: string[], replies: [number, string][], options: { tty?: boolean; refreshes: number }) {
  const gw = mockGateway();
  for (const [status, body] of replies) gw.pool.intercept({ path: '/v1/open/balance' }).reply(status, body, json);
  const interrupt = new AbortController();
  const { Interrupted } = await import('../../src/errors.js');
  const sleeps: number[] = [];
  const result = await runCommand(argv, {
    transport: gw.transport,
    env,
    tty: options.tty,
    now: () => Date.UTC(2026, 10, 21, 12, sleeps.length),
    interrupt: interrupt.signal,
    sleep: async (ms) => {
      sleeps.push(ms);
      if (sleeps.length >= options.refreshes) interrupt.abort(new Interrupted('interrupted'));
    },
  });
  return { ...result, sleeps };
}

describe('--watch', () => {
  it('writes one JSON document per refresh (NDJSON), every SECONDS, until Ctrl-C (exit 130)', async () => {
    const result = await watch(['balance', '--json', '--watch', '15'], [[200, balance('3.00')], [200, balance('2.50')], [200, balance('2.00')]], { refreshes: 3 });
    expect(result.code).toBe(130);
    expect(result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line).balance)).toEqual(['3.00', '2.50', '2.00']);
    expect(result.sleeps).toEqual([15000, 15000, 15000]);
  });

  it('applies --jq to each document', async () => {
    const result = await watch(['balance', '--jq', '.balance', '--watch', '10'], [[200, balance('3.00')], [200, balance('2.50')]], { refreshes: 2 });
    expect(result.stdout).toBe('3.00\n2.50\n');
  });

  it('redraws in place on a terminal under a header with the time of the refresh; a failed one keeps the last good view', async () => {
    const result = await watch(['balance', '--watch'], [[200, balance('3.00')], [500, '{"error": "ledger offline"}'], [200, balance('2.00')]], { tty: true, refreshes: 3 });
    expect(result.code).toBe(130);
    expect(result.sleeps).toEqual([60000, 60000, 60000]);
    expect(result.stdout).toContain('tally balance · every 60s · updated 12:00:00 · Ctrl-C to stop');
    // The header stays one line of the screen; why the refresh failed is the line under it.
    expect(result.stdout).toContain('tally balance · every 60s · refresh failed at 12:01:00 · showing 12:00:00\ngw.test answered HTTP 500 for /v1/open/balance: ledger offline\n');
    expect(result.stdout).toContain('Balance         ¥2.00');
    // Redrawn, not scrolled: the later frames move the cursor back up over the earlier ones.
    expect(result.stdout).toMatch(/\u001b\[\d+A/);
  });

  it.each([
    [['balance', '--watch', '5'], '--watch must be at least 10 seconds'],
    [['balance', '--watch', 'often'], '--watch "often" is not a whole number'],
    [['usage', '--watch', '--csv'], '--watch shows a table or JSON documents; it cannot be combined with --csv'],
    [['usage', '--by', 'model', '--watch'], '--watch goes with the usage series'],
  ])('refuses %j (exit 2)', async (argv, message) => {
    const result = await runCommand(argv, { transport: mockGateway().transport, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('--watch on a short terminal', () => {
  it('keeps the header and cuts the body to the terminal, as watch(1) does', async () => {
    const { fitHeight } = await import('../../src/loops/watch.js');
    const frame = ['header', '', 'a', 'b', 'c', 'd', 'e'].join('\n');
    expect(fitHeight(frame, 5)).toBe(['header', '', 'a', 'b'].join('\n'));
    expect(fitHeight(frame, 8)).toBe(frame);
    expect(fitHeight(frame, undefined)).toBe(frame);
  });

  it('never draws more rows than the terminal has', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance('3.00'), json);
    const interrupt = new AbortController();
    const { Interrupted } = await import('../../src/errors.js');
    const result = await runCommand(['balance', '--watch', '10'], {
      transport: gw.transport, env, tty: true, height: 4, interrupt: interrupt.signal,
      now: () => Date.UTC(2026, 10, 21, 12),
      sleep: async () => interrupt.abort(new Interrupted('interrupted')),
    });
    expect(result.code).toBe(130);
    const screen = result.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n').filter(Boolean);
    expect(screen[0]).toMatch(/^tally balance · every 10s · updated 12:00:00/);
    expect(screen.length).toBeLessThanOrEqual(3);
  });
});

describe('--watch on a narrow terminal', () => {
  it('keeps the header with the update time on one line: the optional parts give way, then it is cut', async () => {
    for (const width of [80, 44, 30]) {
      const gw = mockGateway();
      gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance('3.00'), json);
      const interrupt = new AbortController();
      const { Interrupted } = await import('../../src/errors.js');
      const result = await runCommand(['balance', '--watch', '10'], {
        transport: gw.transport, env, tty: true, width, height: 24, interrupt: interrupt.signal,
        now: () => Date.UTC(2026, 10, 21, 12),
        sleep: async () => interrupt.abort(new Interrupted('interrupted')),
      });
      const screen = result.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n').filter(Boolean);
      expect([width, [...screen[0]!].length <= width]).toEqual([width, true]);
      expect(screen[0]).toMatch(/^tally balance · every 10s · /);
      if (width >= 44) expect(screen[0]).toContain('updated 12:00:00');
    }
  });
});
