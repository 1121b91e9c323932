import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const NOW = Date.UTC(2026, 10, 21, 23, 18, 55);
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
    {"ts": ${(DAY0 + 4 * D) * 1000}, "requests": 3, "prompt_tokens": 1000, "completion_tokens": 200, "spend": "0.75000000"}
  ], "totals": {"requests": 15, "prompt_tokens": 49000, "completion_tokens": 9300, "spend": "4.00000000"}}`;
  // Without a known day grid tally asks on whole hours (a day past now, so the current day is in
  // whatever grid the service uses) and the service aligns both ends down to its days.
  const query = { bucket: 'day', start: String(DAY0 + 23 * 3600), end: String(DAY0 + 7 * D + 23 * 3600) };

  it('prints the complete series as JSON, filled days shaped like the real ones', async () => {
    const gw = usageStub(query, body, 'MISS');
    const result = await runCommand(['usage', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.bucket).toBe('day');
    expect(out.start).toBe(DAY0);
    expect(out.end).toBe(DAY0 + 7 * D);
    expect(out.cache).toBe('MISS');
    expect(out.totals).toEqual({ requests: 15, prompt_tokens: 49000, completion_tokens: 9300, spend: '4.00000000' });
    expect(out.buckets).toHaveLength(7);
    expect(out.buckets[0]).toEqual({ ts: DAY0 * 1000, requests: 0, prompt_tokens: 0, completion_tokens: 0, spend: '0.00000000' });
    expect(out.buckets[1]).toEqual({ ts: (DAY0 + D) * 1000, requests: 12, prompt_tokens: 48000, completion_tokens: 9100, spend: '3.25000000' });
    expect(out.buckets.map((b: { ts: number }) => b.ts)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => (DAY0 + i * D) * 1000));
    gw.done();
  });

  it('draws a table with a bar for the money metric and a totals row', async () => {
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
        '2026-11-19 Thu         3          1,000                200      ¥0.75  #####...............',
        '2026-11-20 Fri         0              0                  0      ¥0.00  ....................',
        '2026-11-21 Sat         0              0                  0      ¥0.00  ....................',
        '--------------  --------  -------------  -----------------  ---------  --------------------',
        'total                 15         49,000              9,300      ¥4.00',
        '7 days, day grid UTC+00:00 (inferred from the data); 5 without calls shown as zero',
        'cached: the gateway answered from its cache; polls within its cache period get the same window',
        '',
      ].join('\n'),
    );
  });

  it('drops token columns before the money column on a narrow terminal', async () => {
    const gw = usageStub(query, body);
    const result = await runCommand(['usage'], { transport: gw.transport, env, now: () => NOW, tty: true, width: 60 });
    expect(result.stdout.split('\n')[0]).toBe('day             requests  prompt_tokens  spend (¥)');
  });

  it('writes CSV with a header row', async () => {
    const gw = usageStub(query, body);
    const result = await runCommand(['usage', '--csv'], { transport: gw.transport, env, now: () => NOW });
    const lines = result.stdout.split('\r\n');
    expect(lines[0]).toBe('ts,requests,prompt_tokens,completion_tokens,spend');
    expect(lines[1]).toBe(`${DAY0 * 1000},0,0,0,0.00000000`);
    expect(lines[2]).toBe(`${(DAY0 + D) * 1000},12,48000,9100,3.25000000`);
    expect(lines).toHaveLength(9);
  });

  it('fills on the grid the service uses (UTC+8 days start at 16:00 UTC)', async () => {
    const start = DAY0 + 16 * 3600;
    const gw = usageStub(query, `{"buckets": [{"start": ${start + 2 * D}, "calls": 4, "cost": "2.00"}], "totals": {"calls": 4, "cost": "2.00"}}`);
    const result = await runCommand(['usage', '--json'], { transport: gw.transport, env, now: () => NOW });
    const out = JSON.parse(result.stdout);
    expect(out.start).toBe(start);
    expect(out.buckets.map((b: { start: number }) => b.start - start)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => i * D));
    expect(out.buckets[2]).toEqual({ start: start + 2 * D, calls: 4, cost: '2.00' });
  });

  it('asks on the --utc-offset grid when given', async () => {
    const start = DAY0 - 8 * 3600;
    const gw = usageStub({ bucket: 'day', start: String(start + D), end: String(start + 8 * D) }, '{"buckets": [], "totals": {}}');
    // No calls in the window: one more request, over 92 days, to learn the field names.
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(start + 8 * D - 92 * D), end: String(start + 8 * D) } }).reply(200, '{"buckets": [], "totals": {}}', json());
    const result = await runCommand(['usage', '--json', '--utc-offset', '+08:00'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    gw.done();
  });

  it('asks for whole hours even with a half-hour --utc-offset, which only labels the hours', async () => {
    const end = Date.UTC(2026, 10, 22, 0) / 1000; // the end of the current hour, 23:18 -> 00:00
    const gw = usageStub({ bucket: 'hour', start: String(end - 3 * 3600), end: String(end) }, `{"buckets": [{"t": "${new Date((end - 3600) * 1000).toISOString()}", "n": 1, "cost": "0.10"}], "totals": {"n": 1, "cost": "0.10"}}`);
    const result = await runCommand(['usage', '--bucket', 'hour', '--since', '2h', '--utc-offset', '+05:30'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(2, 5)).toEqual(['2026-11-22 02:30  0     ¥0.00  ....................', '2026-11-22 03:30  0     ¥0.00  ....................', '2026-11-22 04:30  1     ¥0.10  ####################']);
    expect(result.stdout).toContain('hours shown in UTC+05:30');
    gw.done();
  });

  it('splits a 120-day window into two requests and adds their totals exactly', async () => {
    const gw = mockGateway();
    const since = Date.UTC(2026, 6, 1) / 1000;
    const split = since + 92 * D;
    const until = since + 120 * D;
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(since), end: String(split) } })
      .reply(200, `{"buckets": [{"day": ${since}, "n": 1, "cost": "0.10000001"}], "totals": {"n": 1, "cost": "0.10000001"}}`, json('HIT'));
    gw.pool.intercept({ path: '/v1/open/usage', query: { bucket: 'day', start: String(split), end: String(until) } })
      .reply(200, `{"buckets": [{"day": ${until - D}, "n": 2, "cost": "99999999999.99999999"}], "totals": {"n": 2, "cost": "99999999999.99999999"}}`, json('MISS'));
    const result = await runCommand(['usage', '--json', '--since', '2026-07-01', '--until', String(until)], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.buckets).toHaveLength(120);
    expect(out.totals).toEqual({ n: 3, cost: '100000000000.10000000' });
    expect(out.cache).toBe('MISS');
    gw.done();
  });

  it('fills a window without calls using field names learned from the 92 days before its end', async () => {
    const gw = usageStub(query, '{"buckets": [], "totals": {"calls": 0, "cost": "0"}}');
    const probe = { bucket: 'day', start: String(DAY0 + 7 * D + 23 * 3600 - 92 * D), end: query.end };
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
    expect(result.stdout).toBe('day\n-----\n-----\ntotal\nthe gateway has no usage to show for this window (nor in the 92 days before its end), so not even its field names are known\n0 days, day grid UTC+00:00 (assumed: no buckets to infer it from)\ncache state not reported by the gateway\n');
    gw.done();
  });

  it.each([
    [['usage', '--bucket', 'week'], '--bucket "week" is not one of hour, day'],
    [['usage', '--since', 'yesterday'], '--since "yesterday" is not a time'],
    [['usage', '--since', '2026-11-20', '--until', '2026-11-10'], '--since (2026-11-20) must be before --until (2026-11-10)'],
    [['usage', '--utc-offset', '8'], 'UTC offset "8" is not of the form +HH:MM'],
  ])('exits 2 for %j without a request', async (argv, message) => {
    const gw = mockGateway();
    const result = await runCommand(argv, { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    gw.done();
  });
});

describe('tally usage --by model and tally logs', () => {
  it('passes the window and --param through, finds the records and follows --all', async () => {
    const gw = mockGateway();
    const start = String(NOW / 1000 - 7 * D);
    const end = String(NOW / 1000);
    gw.pool.intercept({ path: '/v1/open/usage/models', query: { start, end, group: 'vip' } })
      .reply(200, '{"items": [{"model": "gpt-5", "calls": 3, "amount": "1.20"}], "next_page_token": "p2", "window": "7d"}', json());
    gw.pool.intercept({ path: '/v1/open/usage/models', query: { start, end, group: 'vip', page_token: 'p2' } })
      .reply(200, '{"items": [{"model": "glm-4.6", "calls": 1, "amount": "0.05"}], "next_page_token": ""}', json());
    const result = await runCommand(['usage', '--by', 'model', '--param', 'group=vip', '--all'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      ['model    calls  amount (¥)', '-------  -----  ----------', 'gpt-5        3       ¥1.20', 'glm-4.6      1       ¥0.05', '2 records', ''].join('\n'),
    );
    gw.done();
  });

  it('says how to get more when --all is not given, and keeps the rest of the response in --json', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/logs', query: { start: String(NOW / 1000 - D), end: String(NOW / 1000) } })
      .reply(200, '{"data": [{"id": "c1", "created": 1795300000, "cost": "0.01"}], "cursor": "abc", "server": "gw-3"}', json());
    const result = await runCommand(['logs', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(JSON.parse(result.stdout)).toEqual({ server: 'gw-3', start: NOW / 1000 - D, end: NOW / 1000, records: [{ id: 'c1', created: 1795300000, cost: '0.01' }] });
    expect(result.stderr).toBe('more records: add --all, or --param cursor=abc\n');
  });

  it('streams NDJSON and escapes control characters in tables', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: (path) => path.startsWith('/v1/open/logs?') }).reply(200, '[{"id": "c1", "model": "evil\\u001b]0;pwned\\u0007", "cost": "0.02"}]', json()).times(2);
    const ndjson = await runCommand(['logs', '--ndjson'], { transport: gw.transport, env, now: () => NOW });
    expect(ndjson.stdout).toBe('{"id":"c1","model":"evil\\u001b]0;pwned\\u0007","cost":"0.02"}\n');
    const table = await runCommand(['logs'], { transport: gw.transport, env, now: () => NOW });
    expect(table.stdout).toContain('evil\\e]0;pwned\\u0007');
    expect(table.stdout).not.toContain('\u001b');
  });

  it('refuses an unknown --by and a --param without key=value', async () => {
    expect((await runCommand(['usage', '--by', 'key'], { env })).stderr).toBe('tally: --by "key" is not supported (use --by model)\n');
    expect((await runCommand(['logs', '--param', 'oops'], { env, transport: mockGateway().transport })).code).toBe(2);
  });
});
