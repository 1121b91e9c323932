// tally usage / usage --by model / logs, built binary against sandboxes that name and grid their buckets differently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const state = tempDir();
const sandboxes: Sandbox[] = [];
async function gateway(options: Parameters<typeof startSandbox>[0] = {}) {
  const sandbox = await startSandbox(options);
  sandboxes.push(sandbox);
  return { sandbox, env: { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' } };
}
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

const D = 86400;

describe('tally usage against the sandbox', () => {
  it('fills a UTC+8 day grid with millisecond times, totals as the service sent them', async () => {
    const result = await runTally(['usage', '--json'], { env: detailed.env });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.end - out.start).toBe(7 * D);
    expect((out.start + 8 * 3600) % D).toBe(0);
    expect(out.buckets).toHaveLength(7);
    for (const [i, bucket] of out.buckets.entries()) {
      expect(Object.keys(bucket)).toEqual(['ts', 'requests', 'prompt_tokens', 'completion_tokens', 'spend']);
      expect(bucket.ts).toBe((out.start + i * D) * 1000);
      expect(bucket.spend).toMatch(/^\d+\.\d{8}$/);
    }
    const sum = out.buckets.reduce((acc: Decimal, b: { spend: string }) => acc.plus(b.spend), new Decimal(0));
    expect(sum.toFixed(8)).toBe(out.totals.spend);
    // The current day is included: its window ends after now.
    expect(out.end * 1000).toBeGreaterThan(Date.now());
  });

  it('reports the cache: MISS first, HIT for the same window within the cache period', async () => {
    const args = ['usage', '--json', '--bucket', 'hour', '--since', '2026-11-01T00:00:00Z', '--until', '2026-11-02T00:00:00Z'];
    const first = JSON.parse((await runTally(args, { env: detailed.env })).stdout);
    const second = JSON.parse((await runTally(args, { env: detailed.env })).stdout);
    expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
    expect(second.buckets).toEqual(first.buckets);
    expect(second.buckets).toHaveLength(24);
  });

  it('writes filled ISO times the way the service writes them (UTC-5 grid)', async () => {
    const result = await runTally(['usage', '--json', '--since', '30d'], { env: iso.env });
    const out = JSON.parse(result.stdout);
    expect(out.buckets.length).toBeGreaterThanOrEqual(30);
    for (const bucket of out.buckets) expect(bucket.time).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00-05:00$/);
    expect(new Set(out.buckets.map((b: { time: string }) => b.time)).size).toBe(out.buckets.length);
  });

  it('splits a 120-day window into requests of at most 92 days and adds the totals exactly', async () => {
    const before = iso.sandbox.requestsTo('/v1/open/usage').length;
    const result = await runTally(['usage', '--json', '--since', '120d'], { env: iso.env });
    expect(result.code).toBe(0);
    const requests = iso.sandbox.requestsTo('/v1/open/usage').slice(before);
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(Number(r.query.end) - Number(r.query.start)).toBeLessThanOrEqual(92 * D);
    expect(requests[0]!.query.end).toBe(requests[1]!.query.start);
    const out = JSON.parse(result.stdout);
    expect(out.buckets.length).toBe(121);
    const sum = out.buckets.reduce((acc: Decimal, b: { cost_yuan: string }) => acc.plus(b.cost_yuan), new Decimal(0));
    expect(sum.toFixed(8)).toBe(out.totals.cost_yuan);
    const count = out.buckets.reduce((acc: number, b: { request_count: number }) => acc + b.request_count, 0);
    expect(count).toBe(out.totals.request_count);
  });

  it('renders a table with a totals row and the grid it inferred', async () => {
    const result = await runTally(['usage', '--since', '3d'], { env: detailed.env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^day\s+requests\s+prompt_tokens\s+completion_tokens\s+spend \(¥\)$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+¥[\d,]+\.\d{8}$/);
    expect(result.stdout).toContain('day grid UTC+08:00 (inferred from the data)');
  });
});

describe('tally usage --by model and tally logs against the sandbox', () => {
  it('lists usage per model with money in yuan', async () => {
    const result = await runTally(['usage', '--by', 'model', '--json'], { env: detailed.env });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.records.length).toBeGreaterThan(0);
    expect(Object.keys(out.records[0])).toEqual(['model', 'requests', 'prompt_tokens', 'completion_tokens', 'cost']);
    const table = await runTally(['usage', '--by', 'model'], { env: detailed.env });
    expect(table.stdout.split('\n')[0]).toMatch(/^model\s+requests\s+prompt_tokens\s+completion_tokens\s+cost \(¥\)$/);
  });

  it('follows the cursor with --all and streams the same records as NDJSON', async () => {
    const all = await runTally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--json'], { env: detailed.env });
    expect(all.code).toBe(0);
    const out = JSON.parse(all.stdout);
    expect(out.pages).toBeGreaterThan(1);
    const ids = out.records.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const ndjson = await runTally(['logs', '--since', '3d', '--param', 'limit=20', '--all', '--ndjson'], { env: detailed.env });
    const lines = ndjson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((r: { id: string }) => r.id)).toEqual(ids);
    const one = await runTally(['logs', '--since', '3d', '--param', 'limit=20'], { env: detailed.env });
    expect(one.stderr).toMatch(/^more records: add --all, or --param cursor=\S+\n$/);
    expect(one.stdout.split('\n')[0]).toMatch(/^id\s+created_at\s+model\s+prompt_tokens\s+completion_tokens\s+cost \(¥\)\s+latency_ms\s+status$/);
  });

  it('exits 3 without a credential', async () => {
    const result = await runTally(['usage'], { env: { ...detailed.env, TALLY_API_KEY: '' } });
    expect(result.code).toBe(3);
  });
});
