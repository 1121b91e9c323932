// tally models / pricing, built binary against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

let sandbox: Sandbox;
const state = tempDir();
const env = (key?: string) => ({ TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, ...(key ? { TALLY_API_KEY: key } : {}) });

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

describe('tally models and pricing against the sandbox', () => {
  it('shows different keys different model lists, sorted by name', async () => {
    const demo = JSON.parse((await runTally(['models', '--json'], { env: env(sandbox.demoKey) })).stdout);
    const limited = JSON.parse((await runTally(['models', '--json'], { env: env(sandbox.limitedKey) })).stdout);
    const ids = (list: { id: string }[]) => list.map((m) => m.id);
    expect(ids(limited).length).toBeLessThan(ids(demo).length);
    expect(ids(limited)).not.toContain('claude-opus-4.1');
    expect(ids(demo)).toContain('claude-opus-4.1');
    expect(ids(demo)).toEqual([...ids(demo)].sort());
    const alt = JSON.parse((await runTally(['models', '--json', '--format', 'alt'], { env: env(sandbox.limitedKey) })).stdout);
    expect(ids(alt)).toEqual(ids(limited));
    expect(alt[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('fetches the catalog without a credential and caches it', async () => {
    const before = sandbox.requestsTo('/api/pricing').length;
    const first = await runTally(['pricing', '--json'], { env: env(sandbox.demoKey) });
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.pricing_version).toBe('sbx-2026.11.3');
    expect(out.models.length).toBe(35);
    const requests = sandbox.requestsTo('/api/pricing').slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers.authorization).toBeUndefined();
    expect(requests[0]!.headers['x-api-key']).toBeUndefined();
    await runTally(['pricing', '--model', 'gpt-*'], { env: env() });
    expect(sandbox.requestsTo('/api/pricing').length).toBe(before + 1);
  });

  it('joins what a key may call with what it costs, following service_pricing', async () => {
    const result = await runTally(['models', '--prices'], { env: { ...env(sandbox.demoKey), COLUMNS: '300' } });
    expect(result.code).toBe(0);
    // deepseek-reasoner's catalog ratio is stale (1.5 = ¥3/1M); service_pricing says ¥4/1M.
    expect(result.stdout).toMatch(/^deepseek-reasoner +128,000 +65,536 +always on: high +¥4\.0000 +¥16\.0000 +¥1\.0000$/m);
    expect(result.stdout).toMatch(/^sora-2 .* video_price_per_second ¥0\.7000$/m);
    // An image model with an input price shows it.
    expect(result.stdout).toMatch(/^gpt-image-1 +32,768 +4,096 +none +¥35\.0000 +— +¥8\.7500 +image_output_price ¥0\.2940$/m);
    const csv = await runTally(['models', '--prices', '--csv'], { env: env(sandbox.demoKey) });
    expect(csv.stdout).toContain('\r\ngpt-5,400000,128000,low medium high,8.75,70,0.875,\r\n');
    const asJson = JSON.parse((await runTally(['models', '--prices', '--json'], { env: env(sandbox.demoKey) })).stdout);
    expect(asJson.find((m: { id: string }) => m.id === 'sora-2').catalog_prices).toEqual({ pricing_version: 'sbx-2026.11.3', input_per_1m: null, output_per_1m: null, cache_read_per_1m: null, other: { video_price_per_second: '0.70000000' } });
  });

  it('exits 1 on success: false and falls back to the cache when the catalog is unreachable', async () => {
    sandbox.faults.push({ kind: 'success-false', path: '/api/pricing' });
    const failed = await runTally(['pricing', '--refresh'], { env: env() });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('reported success: false for /api/pricing: pricing catalog is being rebuilt');
    sandbox.faults.push({ kind: 'reset', path: '/api/pricing', times: 10 });
    const fallback = await runTally(['pricing', '--refresh', '--json'], { env: env() });
    expect(fallback.code).toBe(0);
    expect(fallback.stderr).toMatch(/^warning: connection to 127\.0\.0\.1:\d+ was reset; using the catalog cached just now \(version sbx-2026\.11\.3\)\n$/);
    sandbox.faults.length = 0;
  });

  it('refreshes an unchanged catalog in place, and a changing one (sandbox --catalog-churn) afresh', async () => {
    const churning = await startSandbox({ catalogChurn: true });
    const dir = tempDir();
    try {
      for (const [gateway, versions] of [[sandbox, ['sbx-2026.11.3', 'sbx-2026.11.3']], [churning, ['sbx-2026.11.3.1', 'sbx-2026.11.3.2']]] as const) {
        const seen: string[] = [];
        for (let run = 0; run < 2; run++) {
          const result = await runTally(['pricing', '--refresh', '--model', 'gpt-5'], { env: { TALLY_CONFIG_DIR: dir.path, TALLY_BASE_URL: gateway.baseUrl, COLUMNS: '300' } });
          expect(result.code).toBe(0);
          expect(result.stdout).toMatch(/^gpt-5 +OpenAI +openai, openai-response, openai-response-compact, anthropic +¥8\.7500 +¥70\.0000 +¥0\.8750$/m);
          seen.push(/catalog (\S+) · fetched now/.exec(result.stdout)![1]!);
        }
        expect(seen).toEqual(versions);
      }
    } finally {
      await churning.close();
      dir.remove();
    }
  });
});
