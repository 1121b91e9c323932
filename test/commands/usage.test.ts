import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const NOW = Date.UTC(2026, 10, 21, 23, 18, 55); // Saturday
const NOW_S = NOW / 1000;
const D = 86400;
const DAY0 = Date.UTC(2026, 10, 15) / 1000; // default window: 2026-11-15 .. 2026-11-22
const json = (cache?: string) => ({ headers: { 'content-type': 'application/json', ...(cache ? { 'x-cache': cache } : {}) } });

function usageStub(query: Record<string, string>, body: string, cache?: string) {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/open/usage', query }).reply(200, body, json(cache));
  return gw;
}

describe('tally usage', () => {
  // The service leaves out empty days and names its fields its own way.
  const body = `{"buckets": [
    {"ts": ${(DAY0 + D) * 1000}, "requests": 12, "prompt_tokens": 48000, "completion_tokens": 9100, "spend": "3.25000000"},
    {"ts": ${(DAY0 + 4 * D) * 1000}, "requests": 3, "prompt_tokens": 1000, "completion_tokens": 200, "spend": "0.00400000"}
  ], "totals": {"requests": 15, "prompt_tokens": 49000, "completion_tokens": 9300, "spend": "3.25400000"}}`;
  // The day grid is not known before the first answer: tally asks for the last seven days in
  // the service's terms (it aligns both ends down to its own grid), the end a day past now.
  const query = { bucket: 'day', start: String(NOW_S + D - 7 * D), end: String(NOW_S + D) };

  it('prints the complete series as JSON with its window, filled days shaped like the real ones', async () => {
    const gw = usageStub(query, body, 'MISS');
    const result = await runCommand(['usage', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout);
    expect(Object.keys(out)).toEqual(['bucket', 'start', 'end', 'start_iso', 'end_iso', 'buckets', 'totals', 'cache', 'scope', 'complete', 'running_from', 'running_from_iso']);
    // The window ends with today: it has not ended, and says which bucket runs on.
    expect([out.complete, out.running_from]).toEqual([false, out.buckets.at(-1).start ?? out.running_from]);
    // The gateway did not say whose usage this is.
    expect(out.scope).toBeNull();
    expect([out.bucket, out.start, out.end, out.start_iso, out.end_iso, out.cache]).toEqual(['day', DAY0, DAY0 + 7 * D, '2026-11-15T00:00:00+00:00', '2026-11-22T00:00:00+00:00', 'MISS']);
    expect(out.totals).toEqual({ requests: 15, prompt_tokens: 49000, completion_tokens: 9300, spend: '3.25400000' });
    expect(out.buckets).toHaveLength(7);
    expect(out.buckets[0]).toEqual({ ts: DAY0 * 1000, requests: 0, prompt_tokens: 0, completion_tokens: 0, spend: '0.00000000' });
    expect(out.buckets[1]).toEqual({ ts: (DAY0 + D) * 1000, requests: 12, prompt_tokens: 48000, completion_tokens: 9100, spend: '3.25000000' });
    expect(out.buckets.map((b: { ts: number }) => b.ts)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => (DAY0 + i * D) * 1000));
    gw.done();
  });

  it('draws a table: amounts as account amounts (2 decimals, a sliver as <¥0.01), counts grouped, a totals row, the window', async () => {
    const gw = usageStub(query, body, 'HIT');
    const result = await runCommand(['usage'], { transport: gw.transport, env, now: () => NOW, width: 200 });
    expect(result.stdout).toBe(
      [
        'day             requests  prompt_tokens  completion_tokens  spend (¥)',
        '--------------  --------  -------------  -----------------  ---------  --------------------',
        '2026-11-15 Sun         0              0                  0      ¥0.00  ....................',
        '2026-11-16 Mon        12         48,000              9,100      ¥3.25  ####################',
        '2026-11-17 Tue         0              0                  0      ¥0.00  ....................',
        '2026-11-18 Wed         0              0                  0      ¥0.00  ....................',
        '2026-11-19 Thu         3          1,000                200     <¥0.01  ....................',
        '2026-11-20 Fri         0              0                  0      ¥0.00  ....................',
        '2026-11-21 Sat         0              0                  0      ¥0.00  ....................',
        '--------------  --------  -------------  -----------------  ---------  --------------------',
        'total                 15         49,000              9,300      ¥3.25',
        "window 2026-11-15 00:00 → 2026-11-22 00:00 UTC+00:00 (7 days), the gateway's day grid, inferred from the data",
        '5 days without calls shown as zero; cached: the gateway answered from its cache (polls within its cache period get the same window)',
        '',
      ].join('\n'),
    );
  });

  it('shows every digit the service sent with --exact, decimal points lined up', async () => {
    const gw = usageStub(query, body);
    const result = await runCommand(['usage', '--exact'], { transport: gw.transport, env, now: () => NOW, width: 200 });
    const lines = result.stdout.split('\n');
    expect(lines[3]).toBe('2026-11-16 Mon        12         48,000              9,100  ¥3.25000000  ####################');
    expect(lines[6]).toBe('2026-11-19 Thu         3          1,000                200  ¥0.00400000  ....................');
    expect(lines[10]).toBe('total                 15         49,000              9,300  ¥3.25400000');
  });

  it('drops token columns before the money column on a narrow terminal, and says so', async () => {
    const gw = usageStub(query, body);
    const result = await runCommand(['usage'], { transport: gw.transport, env, now: () => NOW, tty: true, width: 60 });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('day             requests  prompt_tokens  spend (¥)');
    expect(lines.every((line) => line.length <= 60)).toBe(true);
    expect(result.stdout).toContain('columns hidden to fit 60 columns: bar, completion_tokens\n(--wide shows every column; --csv or --json every field)\n');
    const wide = await runCommand(['usage', '--wide'], { transport: usageStub(query, body).transport, env, now: () => NOW, tty: true, width: 60 });
    expect(wide.stdout.split('\n')[0]).toBe('day             requests  prompt_tokens  completion_tokens  spend (¥)');
  });

  it('writes CSV with a header row, exactly as sent', async () => {
    const gw = usageStub(query, body);
    const result = await runCommand(['usage', '--csv'], { transport: gw.transport, env, now: () => NOW });
    const lines = result.stdout.split('\r\n');
    // A date a spreadsheet reads first, the fields exactly as sent, then the start in ISO 8601.
    expect(lines[0]).toBe('date,ts,requests,prompt_tokens,completion_tokens,spend,start_iso');
    expect(lines[1]).toBe(`2026-11-15,${DAY0 * 1000},0,0,0,0.00000000,2026-11-15T00:00:00+00:00`);
    expect(lines[2]).toBe(`2026-11-16,${(DAY0 + D) * 1000},12,48000,9100,3.25000000,2026-11-16T00:00:00+00:00`);
    expect(lines).toHaveLength(9);
  });

  it('fills on the grid the service uses (UTC+8 days start at 16:00 UTC) and remembers it for the next run', async () => {
    // 23:18 UTC is already Sunday 07:18 on a UTC+8 grid: the seven days end with Sunday 2026-11-22.
    const start = DAY0 + 16 * 3600;
    const state = (await import('../helpers.js')).freshState();
    const gw = usageStub(query, `{"buckets": [{"start": ${start + 2 * D}, "calls": 4, "cost": "2.00"}], "totals": {"calls": 4, "cost": "2.00"}}`);
    const result = await runCommand(['usage', '--json'], { transport: gw.transport, env: { ...env, TALLY_CONFIG_DIR: state }, now: () => NOW });
    const out = JSON.parse(result.stdout);
    expect(out.start).toBe(start);
    expect(out.start_iso).toBe('2026-11-16T00:00:00+08:00');
    expect(out.buckets.map((b: { start: number }) => b.start - start)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => i * D));
    expect(out.buckets[2]).toEqual({ start: start + 2 * D, calls: 4, cost: '2.00' });
    // Known now: the next run asks on that grid directly.
    const next = usageStub({ bucket: 'day', start: String(start), end: String(start + 7 * D) }, `{"buckets": [{"start": ${start + 2 * D}, "calls": 4, "cost": "2.00"}], "totals": {}}`);
    const again = await runCommand(['usage', '--json'], { transport: next.transport, env: { ...env, TALLY_CONFIG_DIR: state }, now: () => NOW });
    expect(again.code).toBe(0);
    next.done();
  });

  it('asks on the --utc-offset grid when given', async () => {
    const start = DAY0 - 8 * 3600;
    const gw = usageStub({ bucket: 'day', start: String(start + D), end: String(start + 8 * D) }, '{"buckets": [], "totals": {}}');
    // No calls in the window: one more request, over 92 days, to learn the field names.
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(start + 8 * D - 92 * D), end: String(start + 8 * D) } }).reply(200, '{"buckets": [], "totals": {}}', json());
    const result = await runCommand(['usage', '--json', '--utc-offset', '+08:00'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).start_iso).toBe('2026-11-16T00:00:00+08:00');
    gw.done();
  });

  it('asks for whole UTC hours with a half-hour --utc-offset, which labels them, the current hour included', async () => {
    const end = Date.UTC(2026, 10, 22, 0) / 1000; // the end of the current hour, 23:18 -> 00:00
    const gw = usageStub({ bucket: 'hour', start: String(end - 2 * 3600), end: String(end) }, `{"buckets": [{"t": "${new Date((end - 3600) * 1000).toISOString()}", "n": 1, "cost": "0.10"}], "totals": {"n": 1, "cost": "0.10"}}`);
    const result = await runCommand(['usage', '--bucket', 'hour', '--since', '2h', '--utc-offset', '+05:30'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(0, 4)).toEqual(['hour              n  cost (¥)', '----------------  -  --------  --------------------', '2026-11-22 03:30  0     ¥0.00  ....................', '2026-11-22 04:30  1     ¥0.10  ####################']);
    expect(result.stdout).toContain('window 2026-11-22 03:30 → 2026-11-22 05:30 UTC+05:30 (2 hours)');
    gw.done();
  });

  it('labels hours in the zone of TZ, with the offset in force at each hour (America/New_York across 2026-11-01)', async () => {
    const start = Date.UTC(2026, 10, 1, 4) / 1000;
    // 00:00 to 02:00 local: 00:00 and 01:00 EDT, then 01:00 again in EST.
    const gw = usageStub({ bucket: 'hour', start: String(start), end: String(start + 3 * 3600) }, `{"buckets": [{"t": ${start + 3600}, "cost": "1.00"}], "totals": {"cost": "1.00"}}`);
    const result = await runCommand(['usage', '--bucket', 'hour', '--since', '2026-11-01T00:00', '--until', '2026-11-01T02:00'], { transport: gw.transport, env: { ...env, TZ: 'America/New_York' }, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(2, 5).map((l) => l.slice(0, 23))).toEqual(['2026-11-01 00:00 -04:00', '2026-11-01 01:00 -04:00', '2026-11-01 01:00 -05:00']);
    expect(result.stdout).toContain('(America/New_York, UTC-04:00 → UTC-05:00) (3 hours)');
    gw.done();
  });

  it('splits a 120-day window into two requests and adds their totals exactly, whatever the machine zone', async () => {
    const gw = mockGateway();
    const since = Date.UTC(2026, 6, 1) / 1000;
    const until = since + 120 * D;
    // The grid is not known yet: parts of 92 days, which the service aligns itself (both ends alike).
    const split = since + 92 * D;
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(since), end: String(split) } })
      .reply(200, `{"buckets": [{"day": ${since}, "n": 1, "cost": "0.10000001"}], "totals": {"n": 1, "cost": "0.10000001"}}`, json('HIT'));
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(split), end: String(until + D - 1) } })
      .reply(200, `{"buckets": [{"day": ${until - D}, "n": 2, "cost": "99999999999.99999999"}], "totals": {"n": 2, "cost": "99999999999.99999999"}}`, json('MISS'));
    const result = await runCommand(['usage', '--json', '--since', String(since), '--until', String(until)], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.buckets).toHaveLength(120);
    expect(out.totals).toEqual({ n: 3, cost: '100000000000.10000000' });
    expect(out.cache).toBe('MISS');
    gw.done();
  });

  it('fills a window without calls using field names learned from the 92 days before its end', async () => {
    const gw = usageStub(query, '{"buckets": [], "totals": {"calls": 0, "cost": "0"}}');
    const probe = { bucket: 'day', start: String(NOW_S + D - 92 * D), end: query.end };
    gw.pool.intercept({ path: '/v1/open/usage', query: probe }).reply(200, `{"buckets": [{"day": ${DAY0 - 40 * D}, "calls": 2, "cost": "1.50"}], "totals": {}}`, json());
    const result = await runCommand(['usage', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.buckets).toHaveLength(7);
    expect(out.buckets[0]).toEqual({ day: DAY0, calls: 0, cost: '0.00' });
    expect(out.totals).toEqual({ calls: 0, cost: '0' });
    gw.done();
  });

  it('prints an honest empty table when there is no usage to learn from at all', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, '{"buckets": [], "totals": {"calls": 0, "cost": "0"}}', json()).times(2);
    const result = await runCommand(['usage'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'day',
        '-----',
        '-----',
        'total',
        'the gateway has no usage to show for this window (nor in the 92 days before its end), so not even its field names are known',
        'window 2026-11-15 00:00 → 2026-11-22 00:00 UTC+00:00 (7 days), day grid assumed UTC: no buckets to infer it from (set --utc-offset)',
        'cache state not reported by the gateway',
        '',
      ].join('\n'),
    );
    gw.done();
  });

  it('adds days up into weeks (Monday) and months (the 1st), exactly, the current one marked "to date"', async () => {
    const weekStart = Date.UTC(2026, 8, 28) / 1000; // Monday, 8 weeks back
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(weekStart), end: String(weekStart + 56 * D) } })
      .reply(200, `{"buckets": [{"start": ${weekStart}, "calls": 1, "cost": "0.10"}, {"start": ${weekStart + 6 * D}, "calls": 2, "cost": "0.25"}, {"start": ${weekStart + 55 * D}, "calls": 1, "cost": "1"}], "totals": {"calls": 4, "cost": "1.35"}}`, json());
    const result = await runCommand(['usage', '--bucket', 'week', '--utc-offset', 'Z', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.bucket).toBe('week');
    expect(out.buckets).toHaveLength(8);
    expect(out.buckets[0]).toEqual({ start: weekStart, calls: 3, cost: '0.35' });
    expect(out.buckets[7]).toEqual({ start: weekStart + 49 * D, calls: 1, cost: '1.00' });
    expect(out.totals).toEqual({ calls: 4, cost: '1.35' });
    const table = await runCommand(['usage', '--bucket', 'week', '--utc-offset', 'Z'], { transport: (() => { const g = mockGateway(); g.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, `{"buckets": [{"start": ${weekStart}, "calls": 1, "cost": "0.10"}], "totals": {"calls": 1, "cost": "0.10"}}`, json()); return g.transport; })(), env, now: () => NOW });
    expect(table.stdout.split('\n')[2]).toBe('2026-09-28 W40                1     ¥0.10  ####################');
    expect(table.stdout.split('\n')[9]).toBe('2026-11-16 W47 (to date)      0     ¥0.00  ....................');
  });

  it.each([
    [['usage', '--bucket', 'fortnight'], '--bucket "fortnight" is not one of hour, day, week, month'],
    [['usage', '--since', 'tomorrow'], '--since "tomorrow" is not a time'],
    [['usage', '--since', '2026-11-20', '--until', '2026-11-10'], '--since (2026-11-20) must be before --until (2026-11-10)'],
    [['usage', '--since', '999999999w'], '--since "999999999w" is outside the years 2000 to 2099'],
    [['usage', '--utc-offset', '8'], '--utc-offset "8" is not a UTC offset of the form +HH:MM'],
    [['usage', '--param', 'a=b'], '--param goes with --by model'],
    [['usage', '--by', 'model', '--bucket', 'hour'], '--by model works per day, week or month'],
    [['usage', '--top', '3'], '--top goes with --by model'],
    [['usage', '--json', '--wide'], '--wide shapes tables for people'],
  ])('exits 2 for %j without a request', async (argv, message) => {
    const gw = mockGateway();
    const result = await runCommand(argv, { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    gw.done();
  });
});

describe('tally usage --by model and tally logs', () => {
  // The same seven days as tally usage, on the day grid (UTC, assumed: no usage to infer it from).
  const week = { start: String(DAY0), end: String(DAY0 + 7 * D) };
  const noUsage = (gw: ReturnType<typeof mockGateway>) => gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, '{"buckets": [], "totals": {}}', json());

  it('passes the window and --param through, finds the records, follows --all, and totals the additive columns', async () => {
    const gw = mockGateway();
    noUsage(gw);
    gw.pool.intercept({ path: '/v1/open/usage/models', query: { ...week, group: 'vip' } })
      .reply(200, '{"items": [{"model": "gpt-5", "calls": 3000, "amount": "1.20"}], "next_page_token": "p2", "window": "7d"}', json());
    gw.pool.intercept({ path: '/v1/open/usage/models', query: { ...week, group: 'vip', page_token: 'p2' } })
      .reply(200, '{"items": [{"model": "glm-4.6", "calls": 1, "amount": "0.004"}], "next_page_token": ""}', json());
    const result = await runCommand(['usage', '--by', 'model', '--param', 'group=vip', '--all'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'model    calls  amount (¥)',
        '-------  -----  ----------',
        'gpt-5    3,000       ¥1.20',
        'glm-4.6      1      <¥0.01',
        '-------  -----  ----------',
        'total    3,001       ¥1.20',
        '2 records',
        'window 2026-11-15 00:00 → 2026-11-22 00:00 UTC+00:00 (7 days), day grid assumed UTC: no buckets to infer it from (set --utc-offset)',
        '',
      ].join('\n'),
    );
    gw.done();
  });

  it('says how to get more when --all is not given, and keeps the rest of the response in --json with its window', async () => {
    const gw = mockGateway();
    // Logs end now (no record is later): the same seven days as usage, today included, up to now.
    gw.pool.intercept({ path: '/v1/open/logs', query: { start: String(DAY0), end: String(NOW_S) } })
      .reply(200, '{"data": [{"id": "c1", "created": 1795300000, "cost": "0.01"}], "cursor": "abc", "server": "gw-3"}', json());
    const result = await runCommand(['logs', '--json'], { transport: gw.transport, env, now: () => NOW });
    // The cursor stays (a script can ask for the next page with it), and the document says it is partial.
    expect(JSON.parse(result.stdout)).toEqual({ cursor: 'abc', server: 'gw-3', start: DAY0, end: NOW_S, start_iso: '2026-11-15T00:00:00+00:00', end_iso: '2026-11-21T23:18:55+00:00', records: [{ id: 'c1', created: 1795300000, cost: '0.01' }], complete: false });
    expect(result.stderr).toBe('');
  });

  it('labels log times in the display zone (--utc-offset), says which, and shows per-call costs with 4 decimals', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs?') }).reply(200, '{"data": [{"id": "c1", "created_at": 1795300000, "model": "gpt-5", "cost": "0.01234567"}]}', json());
    const result = await runCommand(['logs', '--utc-offset', '+08:00'], { transport: gw.transport, env, now: () => NOW });
    expect(result.stdout).toBe(
      [
        'id     created_at           model  cost (¥)',
        '-----  -------------------  -----  --------',
        'c1     2026-11-22 06:26:40  gpt-5   ¥0.0123',
        '-----  -------------------  -----  --------',
        'total                               ¥0.01',
        '1 record',
        'window 2026-11-16 00:00 → 2026-11-22 07:18 UTC+08:00',
        'times shown in UTC+08:00',
        '',
      ].join('\n'),
    );
  });

  it('keeps the model and drops latency first on a narrow terminal', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/logs?') }).reply(200, '{"data": [{"id": "call_000001", "created_at": 1795300000, "model": "claude-sonnet-4.5", "prompt_tokens": 12000, "completion_tokens": 800, "cost": "0.01234567", "latency_ms": 4200, "status": "success"}]}', json());
    const result = await runCommand(['logs'], { transport: gw.transport, env, now: () => NOW, tty: true, width: 80 });
    const header = result.stdout.split('\n')[0]!;
    expect(header).toContain('model');
    expect(header).not.toContain('latency_ms');
    expect(result.stdout.split('\n').every((line) => line.length <= 80)).toBe(true);
  });

  it('streams NDJSON (escaped on a terminal, exact on a pipe) and escapes control characters in tables', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (path) => path.startsWith('/v1/open/logs?') }).reply(200, '[{"id": "c1", "model": "evil\\u001b]0;pwned\\u0007\\u009b31m\\u202e", "cost": "0.02"}]', json()).times(3);
    const ndjson = await runCommand(['logs', '--ndjson'], { transport: gw.transport, env, now: () => NOW });
    expect(ndjson.stdout).toBe('{"id":"c1","model":"evil\\u001b]0;pwned\\u0007\u009b31m\u202e","cost":"0.02"}\n');
    const onTerminal = await runCommand(['logs', '--ndjson'], { transport: gw.transport, env, now: () => NOW, tty: true });
    expect(onTerminal.stdout).toBe('{"id":"c1","model":"evil\\u001b]0;pwned\\u0007\\u009b31m\\u202e","cost":"0.02"}\n');
    const table = await runCommand(['logs'], { transport: gw.transport, env, now: () => NOW });
    expect(table.stdout).toContain('evil\\e]0;pwned\\u0007\\u009b31m\\u202e');
    expect(table.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
  });

  it('shows spend per model per week as columns (the rest as "other"), with totals; JSON has the periods', async () => {
    const weekStart = Date.UTC(2026, 10, 9) / 1000;
    const gw = mockGateway();
    noUsage(gw);
    const reply = (start: number, records: string) => gw.pool.intercept({ path: '/v1/open/usage/models', query: { start: String(start), end: String(start + 7 * D) } }).reply(200, `{"models": [${records}]}`, json());
    reply(weekStart, '{"model": "a", "cost": "1.00"}, {"model": "b", "cost": "2.00"}, {"model": "c", "cost": "0.50"}');
    reply(weekStart + 7 * D, '{"model": "a", "cost": "3.25"}');
    const result = await runCommand(['usage', '--by', 'model', '--bucket', 'week', '--since', '2026-11-10', '--top', '2'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(0, 6)).toEqual([
      'week            a (¥)  b (¥)  other 1 (¥)  total (¥)',
      '--------------  -----  -----  -----------  ---------',
      '2026-11-09 W46  ¥1.00  ¥2.00        ¥0.50      ¥3.50',
      '2026-11-16 W47  ¥3.25  ¥0.00        ¥0.00      ¥3.25',
      '--------------  -----  -----  -----------  ---------',
      'total           ¥4.25  ¥2.00        ¥0.50      ¥6.75',
    ]);
    gw.done();
  });

  it('refuses an unknown --by, a --param without key=value, and --max-pages without --all', async () => {
    expect((await runCommand(['usage', '--by', 'key'], { env })).stderr).toContain('--by "key" is not one of model');
    expect((await runCommand(['logs', '--param', 'oops'], { env, transport: mockGateway().transport })).code).toBe(2);
    expect((await runCommand(['logs', '--max-pages', '3'], { env, transport: mockGateway().transport })).stderr).toBe('tally: --max-pages goes with --all\n');
    expect((await runCommand(['logs', '--param', 'start=1'], { env, transport: mockGateway().transport })).stderr).toBe('tally: --param start=… would replace the window; use --since/--until\n');
  });
});

describe('CSV dates', () => {
  it('starts every CSV with times with a date a spreadsheet reads, hours with their time; an empty window still has its header', async () => {
    const { mockGateway: gateway } = await import('../helpers.js');
    const gw = gateway();
    gw.pool.intercept({ path: (p: string) => p.startsWith('/v1/open/usage?') }).reply(200, '{"buckets": [{"t": 1795255200, "n": 1, "cost": "1.00"}], "totals": {"n": 1, "cost": "1.00"}}', { headers: { 'content-type': 'application/json' } }).persist();
    const hours = await runCommand(['usage', '--bucket', 'hour', '--since', '2026-11-21T10:00:00Z', '--until', '2026-11-21T12:00:00Z', '--csv'], { transport: gw.transport, env, now: () => NOW });
    expect(hours.stdout.split('\r\n')[0]).toBe('date,t,n,cost,start_iso');
    expect(hours.stdout.split('\r\n')[1]).toMatch(/^2026-11-21 10:00,/);
    const empty = gateway();
    empty.pool.intercept({ path: (p: string) => p.startsWith('/v1/open/logs?') }).reply(200, '{"data": [], "has_more": false}', { headers: { 'content-type': 'application/json' } });
    const logs = await runCommand(['logs', '--csv'], { transport: empty.transport, env, now: () => NOW });
    expect(logs.stdout).toBe('date\r\n');
  });
});
