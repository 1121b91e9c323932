// tally usage / usage --by model / logs: the built binary against sandboxes that name and grid
// their buckets differently, at two fixed dates (one across a month end) and in two far zones,
// so that any dependence on the date, the hour or the machine's zone shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const D = 86400;
const DATES = [
  ['a Sunday morning in November', Date.UTC(2026, 10, 22, 10, 30)],
  ['just after the end of February', Date.UTC(2026, 2, 1, 2, 15)],
] as const;
const ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'] as const;

describe.each(DATES.flatMap(([when, now]) => ZONES.map((zone) => [when, now, zone] as const)))('at %s (TZ=%s)', (_when, now, zone) => {
  const state = tempDir();
  const sandboxes: Sandbox[] = [];
  async function gateway(options: Parameters<typeof startSandbox>[0] = {}) {
    const sandbox = await startSandbox({ ...options, now: clockStartingAt(now) });
    sandboxes.push(sandbox);
    return { sandbox, env: { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: zone } };
  }
  const tally = (args: string[], env: NodeJS.ProcessEnv) => runTally(args, { env, now });
  let detailed: Awaited<ReturnType<typeof gateway>>;
  let iso: Awaited<ReturnType<typeof gateway>>;
  beforeAll(async () => {
    detailed = await gateway({ naming: 'detailed', dayOffsetMinutes: 480 });
    iso = await gateway({ naming: 'iso', dayOffsetMinutes: -300 });
  });
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    state.remove();
  });

  it('fills a UTC+8 day grid with millisecond times: seven days, today included, totals as sent', async () => {
    const result = await tally(['usage', '--json'], detailed.env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.end - out.start).toBe(7 * D);
    expect((out.start + 8 * 3600) % D).toBe(0);
    expect(out.start_iso).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\+08:00$/);
    expect(out.start * 1000).toBeLessThan(now);
    expect(out.end * 1000).toBeGreaterThan(now);
    expect(out.end * 1000 - now).toBeLessThanOrEqual(D * 1000);
    expect(out.buckets).toHaveLength(7);
    for (const [i, bucket] of out.buckets.entries()) {
      expect(Object.keys(bucket)).toEqual(['ts', 'requests', 'prompt_tokens', 'completion_tokens', 'spend']);
      expect(bucket.ts).toBe((out.start + i * D) * 1000);
      expect(bucket.spend).toMatch(/^\d+\.\d{8}$/);
    }
    const sum = out.buckets.reduce((acc: Decimal, b: { spend: string }) => acc.plus(b.spend), new Decimal(0));
    expect(sum.toFixed(8)).toBe(out.totals.spend);
  });

  it('reports the cache: MISS first, HIT for the same window within the cache period', async () => {
    const args = ['usage', '--json', '--bucket', 'hour', '--since', '30h', '--until', '6h'];
    const first = JSON.parse((await tally(args, detailed.env)).stdout);
    const second = JSON.parse((await tally(args, detailed.env)).stdout);
    expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
    expect(second.buckets).toEqual(first.buckets);
    expect(second.buckets).toHaveLength(24);
  });

  it('writes filled ISO times the way the service writes them (UTC-5 grid), one per day', async () => {
    const result = await tally(['usage', '--json', '--since', '30d'], iso.env);
    const out = JSON.parse(result.stdout);
    expect(out.buckets).toHaveLength(30);
    for (const bucket of out.buckets) expect(bucket.time).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00-05:00$/);
    expect(new Set(out.buckets.map((b: { time: string }) => b.time)).size).toBe(30);
  });

  it('splits a 120-day window into requests of at most 92 days and adds the totals exactly', async () => {
    const before = iso.sandbox.requestsTo('/v1/open/usage').length;
    const result = await tally(['usage', '--json', '--since', '120d'], iso.env);
    expect(result.code).toBe(0);
    const requests = iso.sandbox.requestsTo('/v1/open/usage').slice(before);
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(Number(r.query.end) - Number(r.query.start)).toBeLessThanOrEqual(92 * D);
    expect(requests[0]!.query.end).toBe(requests[1]!.query.start);
    const out = JSON.parse(result.stdout);
    expect(out.buckets.length).toBe(120);
    const sum = out.buckets.reduce((acc: Decimal, b: { cost_yuan: string }) => acc.plus(b.cost_yuan), new Decimal(0));
    expect(sum.toFixed(8)).toBe(out.totals.cost_yuan);
    const count = out.buckets.reduce((acc: number, b: { request_count: number }) => acc + b.request_count, 0);
    expect(count).toBe(out.totals.request_count);
  });

  it('renders a table: account amounts with 2 decimals whatever the data, a totals row, the window and the grid', async () => {
    const result = await tally(['usage', '--since', '3d'], detailed.env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^day\s+requests\s+prompt_tokens\s+completion_tokens\s+spend \(¥\)$/);
    for (const line of lines.slice(2, 5)) expect(line).toMatch(/^\d{4}-\d{2}-\d{2} \w{3}\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+<?¥[\d,]+\.\d{2}\s+[#.]{20}$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+¥[\d,]+\.\d{2}$/);
    expect(result.stdout).toMatch(/window \d{4}-\d{2}-\d{2} 00:00 → \d{4}-\d{2}-\d{2} 00:00 UTC\+08:00 \(3 days\), the gateway's day grid, (inferred from the data|as seen before)/);
  });

  it('adds the days up into months from the 1st on the day grid, the running month "to date"', async () => {
    const result = await tally(['usage', '--bucket', 'month', '--json'], detailed.env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.bucket).toBe('month');
    expect(out.buckets).toHaveLength(6);
    for (const bucket of out.buckets) expect(new Date(bucket.ts + 8 * 3600 * 1000).getUTCDate()).toBe(1);
    const sum = out.buckets.reduce((acc: Decimal, b: { spend: string }) => acc.plus(b.spend), new Decimal(0));
    expect(sum.toFixed(8)).toBe(out.totals.spend);
    const table = await tally(['usage', '--bucket', 'month'], detailed.env);
    expect(table.stdout.split('\n')[7]).toMatch(/^\d{4}-\d{2} \(to date\)/);
  });

  it('lists usage per model over the same seven days, with money in yuan and a totals row', async () => {
    const result = await tally(['usage', '--by', 'model', '--json'], detailed.env);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.end - out.start).toBe(7 * D);
    expect((out.start + 8 * 3600) % D).toBe(0);
    expect(out.records.length).toBeGreaterThan(0);
    expect(Object.keys(out.records[0])).toEqual(['model', 'requests', 'prompt_tokens', 'completion_tokens', 'cost']);
    const table = await tally(['usage', '--by', 'model'], detailed.env);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^model\s+requests\s+prompt_tokens\s+completion_tokens\s+cost \(¥\)$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+¥[\d,]+\.\d{2}$/);
  });

  it('follows the cursor with --all, streams the same records as NDJSON, and labels times in the zone it names', async () => {
    const all = await tally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--json'], detailed.env);
    expect(all.code).toBe(0);
    const out = JSON.parse(all.stdout);
    expect(out.pages).toBeGreaterThan(1);
    const ids = out.records.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const ndjson = await tally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--ndjson'], detailed.env);
    const lines = ndjson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((r: { id: string }) => r.id)).toEqual(ids);
    const one = await tally(['logs', '--since', '3d', '--param', 'limit=20'], detailed.env);
    expect(one.stderr).toBe('');
    expect(one.stdout).toMatch(/^20 records shown: only the first page, more records exist in this window \(add --all, or --param cursor=\S+ for the next page\); the totals are of this page$/m);
    expect(one.stdout).toMatch(/^page total /m);
    expect(one.stdout.split('\n')[0]).toMatch(/^id\s+created_at\s+model\s+prompt_tokens\s+completion_tokens\s+cost \(¥\)\s+latency_ms\s+status$/);
    expect(one.stdout).toContain(`times shown in ${zone}`);
    const first = one.stdout.split('\n')[2]!;
    const shown = first.match(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/)![0];
    const record = out.records[0];
    const local = new Date(record.created_at * 1000).toLocaleString('sv-SE', { timeZone: zone });
    expect(shown).toBe(local);
  });

  it('exits 3 without a credential', async () => {
    const result = await tally(['usage'], { ...detailed.env, TALLY_API_KEY: '' });
    expect(result.code).toBe(3);
  });
});
