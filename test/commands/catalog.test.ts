import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand, tempDirs } from '../helpers.js';
import { cacheFileId, cachePath } from '../../src/settings/cache-key.js';

const stateDir = tempDirs();

const json = { headers: { 'content-type': 'application/json' } };
const catalog = (version: string, gpt5Input = '0.00875000') => `{
  "success": true, "pricing_version": "${version}", "auto_groups": [], "group_ratio": {"default": 1}, "usable_group": {}, "supported_endpoint": {}, "vendors": [],
  "data": [
    {"model_name": "gpt-5", "quota_type": 0, "model_ratio": 4.375, "model_price": 0, "owner_by": "OpenAI", "completion_ratio": 8, "cache_ratio": 0.1, "enable_groups": ["default"], "supported_endpoint_types": ["openai"], "billing_mode": "per_token", "vendor": {"id": "v1", "name": "OpenAI", "slug": "openai"}, "service_pricing": {"input_unit_price": "${gpt5Input}", "output_unit_price": "0.07000000", "cache_read_input_price": "0.00087500"}, "extra_field": 1.50},
    {"model_name": "gpt-oss-120b", "quota_type": 0, "model_ratio": 0, "model_price": 0, "owner_by": "OpenAI", "completion_ratio": 1, "cache_ratio": 1, "enable_groups": ["default"], "supported_endpoint_types": ["openai"], "billing_mode": "per_token", "vendor": {"id": "v1", "name": "OpenAI", "slug": "openai"}, "service_pricing": {"input_unit_price": "0.00000000", "output_unit_price": "0.00420000", "cache_read_input_price": "0.00000000"}},
    {"model_name": "deepseek-reasoner", "quota_type": 0, "model_ratio": 1.5, "model_price": 0, "owner_by": "DeepSeek", "completion_ratio": 4, "cache_ratio": 0.25, "enable_groups": ["default", "vip"], "supported_endpoint_types": ["openai", "anthropic"], "billing_mode": "per_token", "vendor": {"id": "v2", "name": "DeepSeek", "slug": "deepseek"}, "service_pricing": {"input_unit_price": "0.00400000", "output_unit_price": "0.01600000", "cache_read_input_price": "0.00100000"}},
    {"model_name": "qwen-image-edit", "quota_type": 1, "model_ratio": 0, "model_price": 0.3, "owner_by": "Alibaba", "completion_ratio": 1, "cache_ratio": 1, "enable_groups": ["image"], "supported_endpoint_types": ["image-generation"], "billing_mode": "per_call", "vendor": {"id": "v3", "name": "Alibaba", "slug": "qwen"}, "service_pricing": {"input_unit_price": "0", "output_unit_price": "0", "cache_read_input_price": "0", "per_request_price": "0.30000000"}}
  ]
}`;

function pricingGateway(...bodies: string[]) {
  const gw = mockGateway();
  for (const body of bodies) gw.pool.intercept({ path: '/api/pricing' }).reply(200, (opts) => {
    if ((opts.headers as Record<string, string>).authorization) throw new Error('credential sent to the public catalog');
    return body;
  }, json);
  return gw;
}

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 21, 12);

describe('tally pricing', () => {
  it('shows yuan per 1M tokens from service_pricing, never the ratios, and a per-call price by its name', async () => {
    const gw = pricingGateway(catalog('v1'));
    const result = await runCommand(['pricing'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() }, now: () => T, width: 300 });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'model              vendor    endpoint types     input ¥/1M  output ¥/1M  cache read ¥/1M  other prices (¥)',
        '-----------------  --------  -----------------  ----------  -----------  ---------------  -------------------------',
        'deepseek-reasoner  DeepSeek  openai, anthropic     ¥4.0000     ¥16.0000          ¥1.0000',
        'gpt-5              OpenAI    openai                ¥8.7500     ¥70.0000          ¥0.8750',
        'gpt-oss-120b       OpenAI    openai                ¥0.0000      ¥4.2000          ¥0.0000',
        'qwen-image-edit    Alibaba   image-generation            —            —                —  per_request_price ¥0.3000',
        '4 of 4 models · catalog v1 · fetched now · prices from service_pricing, yuan per 1M tokens; other prices (per call, second, image) as the catalog names them',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('$');
    gw.done();
  });

  it('filters, sorts and prints the records unchanged with --json', async () => {
    const gw = pricingGateway(catalog('v1'));
    const result = await runCommand(['pricing', '--json', '--vendor', 'openai', '--sort', 'output'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() }, now: () => T });
    expect(result.stdout).toContain('"extra_field": 1.50');
    const out = JSON.parse(result.stdout);
    expect(out.pricing_version).toBe('v1');
    expect(out.models.map((m: { model_name: string }) => m.model_name)).toEqual(['gpt-oss-120b', 'gpt-5']);
  });

  it('writes CSV', async () => {
    const gw = pricingGateway(catalog('v1'));
    const result = await runCommand(['pricing', '--csv', '--type', 'image-generation'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() }, now: () => T });
    expect(result.stdout).toBe('model,vendor,endpoint_types,billing_mode,input_per_1m,output_per_1m,cache_read_per_1m,other_prices\r\nqwen-image-edit,Alibaba,image-generation,per_call,,,,per_request_price=0.30000000\r\n');
  });

  it('reuses the cached catalog within the TTL, refetches after it or with --refresh', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    const gw = pricingGateway(catalog('v1'), catalog('v2'), catalog('v3'));
    const version = async (argv: string[], now: number) => JSON.parse((await runCommand(['pricing', '--json', ...argv], { transport: gw.transport, env, now: () => now })).stdout).pricing_version;
    expect(await version([], T)).toBe('v1');
    expect(await version([], T + HOUR / 2)).toBe('v1');
    expect(await version([], T + 2 * HOUR)).toBe('v2');
    expect(await version(['--refresh'], T + 2 * HOUR)).toBe('v3');
    expect(await version(['--max-age', '99999'], T + 20 * HOUR)).toBe('v3');
    const files = readdirSync(join(dir, 'cache')).sort();
    // The catalog before the last change is kept: it is what --diff compares with.
    const id = cacheFileId(new URL(GW));
    expect(files).toEqual([`pricing-${id}.json`, `pricing-${id}.listing.json`, `pricing-${id}.previous.json`, `pricing-${id}.versions`]);
    // And every version replaced, dated by when it was last seen current (for --diff --since).
    expect(readdirSync(join(dir, 'cache', `pricing-${id}.versions`)).sort()).toEqual([`${T}.json`, `${T + 2 * HOUR}.json`].sort());
    const whole = JSON.parse(readFileSync(join(dir, 'cache', files[0]!), 'utf8'));
    const listing = JSON.parse(readFileSync(join(dir, 'cache', files[1]!), 'utf8'));
    expect(whole.pricing_version).toBe('v3');
    expect(Object.keys(whole.catalog.data[0])).toContain('model_ratio');
    expect(listing.catalog.names).toEqual([...listing.catalog.names].sort());
    expect(listing.catalog.names).toContain('gpt-5');
    expect(listing.catalog.strings).toEqual(expect.arrayContaining(['OpenAI', 'per_token', '0.00875000', '0.07000000', '0.00087500']));
    // --json from the cache still prints every record exactly as the service sent it.
    const cachedJson = await runCommand(['pricing', '--json'], { transport: gw.transport, env, now: () => T + 20 * HOUR + 1 });
    expect(cachedJson.stdout).toContain('"extra_field": 1.50');
    gw.done();
  });

  it('--offline uses the cache only, and fails clearly without one', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    const none = await runCommand(['pricing', '--offline'], { env, transport: mockGateway().transport });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('tally: no cached price catalog for https://gw.test; run `tally pricing` once while online\n');
    await runCommand(['pricing'], { transport: pricingGateway(catalog('v1')).transport, env, now: () => T });
    const offline = await runCommand(['pricing', '--offline', '--json'], { transport: mockGateway().transport, env, now: () => T + 30 * HOUR });
    expect(JSON.parse(offline.stdout).pricing_version).toBe('v1');
  });

  it('falls back to the cache with a warning saying how old it is when the service is unreachable', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    await runCommand(['pricing'], { transport: pricingGateway(catalog('v1')).transport, env, now: () => T });
    const down = mockGateway();
    down.pool.intercept({ path: '/api/pricing' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    const result = await runCommand(['pricing', '--json'], { transport: down.transport, env, now: () => T + 3 * HOUR });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).pricing_version).toBe('v1');
    expect(result.stderr).toBe('warning: cannot connect to gw.test: connection refused; using the catalog cached 3 h ago (version v1)\n');
  });

  it('falls back to the cache on --refresh too, table from the listing and --json from the whole catalog', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    await runCommand(['pricing'], { transport: pricingGateway(catalog('v1')).transport, env, now: () => T });
    const down = mockGateway();
    down.pool.intercept({ path: '/api/pricing' }).replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).times(2);
    const table = await runCommand(['pricing', '--refresh', '--model', 'gpt-5'], { transport: down.transport, env, now: () => T + 60_000, width: 300 });
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(
      [
        'model  vendor  endpoint types  input ¥/1M  output ¥/1M  cache read ¥/1M  other prices (¥)',
        '-----  ------  --------------  ----------  -----------  ---------------  ----------------',
        'gpt-5  OpenAI  openai             ¥8.7500     ¥70.0000          ¥0.8750',
        '1 of 4 models · catalog v1 · cached 1 min ago · prices from service_pricing, yuan per 1M tokens; other prices (per call, second, image) as the catalog names them',
        '',
      ].join('\n'),
    );
    expect(table.stderr).toBe('warning: cannot connect to gw.test: connection refused; using the catalog cached 1 min ago (version v1)\n');
    const json = await runCommand(['pricing', '--refresh', '--json'], { transport: down.transport, env, now: () => T + 60_000 });
    expect(JSON.parse(json.stdout).models.map((m: { model_name: string }) => m.model_name)).toEqual(['deepseek-reasoner', 'gpt-5', 'gpt-oss-120b', 'qwen-image-edit']);
  });

  it('caches the catalog exactly as the service sent it, spacing and number spellings included', async () => {
    const dir = stateDir();
    const text = catalog('v1').replace('"extra_field": 1.50', '"extra_field" :  1.50e0');
    await runCommand(['pricing'], { transport: pricingGateway(text).transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir }, now: () => T });
    const whole = readdirSync(join(dir, 'cache')).find((name) => !name.includes('listing'))!;
    expect(readFileSync(join(dir, 'cache', whole), 'utf8')).toBe(`{"base_url":"https://gw.test/","fetched_at":"2026-11-21T12:00:00.000Z","pricing_version":"v1","catalog":${text}}`);
    const cached = await runCommand(['pricing', '--json', '--model', 'gpt-5'], { env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir }, transport: mockGateway().transport, now: () => T + 1 });
    expect(cached.stdout).toContain('"extra_field": 1.50e0');
  });

  it('keeps the cached listing when a refetch brings exactly the cached catalog, and restarts its TTL', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    const gw = pricingGateway(catalog('v1'), catalog('v1'));
    await runCommand(['pricing', '--model', 'gpt-5'], { transport: gw.transport, env, now: () => T, width: 300 });
    // Mark the listing: a rebuilt one would lose the mark.
    const listingPath = cachePath(dir, 'pricing', new URL(GW), undefined, '.listing.json');
    writeFileSync(listingPath, readFileSync(listingPath, 'utf8').replace('"OpenAI"', '"OpenAI (kept)"'));
    const again = await runCommand(['pricing', '--model', 'gpt-5'], { transport: gw.transport, env, now: () => T + 2 * HOUR, width: 300 });
    gw.done();
    expect(again.stdout).toBe(
      [
        'model  vendor         endpoint types  input ¥/1M  output ¥/1M  cache read ¥/1M  other prices (¥)',
        '-----  -------------  --------------  ----------  -----------  ---------------  ----------------',
        'gpt-5  OpenAI (kept)  openai             ¥8.7500     ¥70.0000          ¥0.8750',
        '1 of 4 models · catalog v1 · fetched now · prices from service_pricing, yuan per 1M tokens; other prices (per call, second, image) as the catalog names them',
        '',
      ].join('\n'),
    );
    const files = readdirSync(join(dir, 'cache')).map((name) => readFileSync(join(dir, 'cache', name), 'utf8'));
    for (const file of files) expect(file.startsWith('{"base_url":"https://gw.test/","fetched_at":"2026-11-21T14:00:00.000Z","pricing_version":"v1","catalog":')).toBe(true);
    // Within the new TTL the cache answers: the mock gateway has no more answers to give.
    const cached = await runCommand(['pricing', '--model', 'gpt-5'], { transport: mockGateway().transport, env, now: () => T + 2.5 * HOUR, width: 300 });
    expect(cached.stdout).toContain('gpt-5  OpenAI (kept)  openai');
    expect(cached.stdout).toContain('1 of 4 models · catalog v1 · cached 30 min ago');
  });

  it('rebuilds a missing listing when a refetch brings the cached catalog unchanged', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    const gw = pricingGateway(catalog('v1'), catalog('v1'));
    await runCommand(['pricing'], { transport: gw.transport, env, now: () => T });
    const listingPath = cachePath(dir, 'pricing', new URL(GW), undefined, '.listing.json');
    const listing = readFileSync(listingPath, 'utf8');
    rmSync(listingPath);
    const again = await runCommand(['pricing', '--model', 'gpt-5', '--refresh'], { transport: gw.transport, env, now: () => T, width: 300 });
    gw.done();
    expect(again.stdout).toContain('gpt-5  OpenAI  openai             ¥8.7500     ¥70.0000          ¥0.8750');
    expect(readFileSync(listingPath, 'utf8')).toBe(listing);
  });

  it('reports success: false as an error, never as an empty catalog', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, '{"success": false, "message": "catalog rebuilding"}', json);
    const result = await runCommand(['pricing'], { transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('tally: gw.test reported success: false for /api/pricing: catalog rebuilding\n');
  });

  it('--diff lists models added, removed and re-priced since the previous catalog version, which a plain refresh keeps', async () => {
    const dir = stateDir();
    const env = { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: dir };
    const first = await runCommand(['pricing', '--diff'], { transport: pricingGateway(catalog('v1')).transport, env, now: () => T });
    expect(first.stdout).toBe('No earlier catalog was cached; saved this one (4 models, version v1) for the next --diff.\n');
    const changed = catalog('v2', '0.00700000').replace(/,\s*\{"model_name": "qwen-image-edit".*\}\s*\]/s, ']');
    const table = [
      'model            change    details',
      '---------------  --------  -------------------------------------------------',
      'gpt-5            repriced  input_unit_price ¥8.7500/1M → ¥7.0000/1M (-20.0%)',
      'qwen-image-edit  removed',
    ];
    const diff = await runCommand(['pricing', '--diff'], { transport: pricingGateway(changed).transport, env, now: () => T + 60_000 });
    expect(diff.stdout).toBe([...table, 'catalog v1 (fetched 1 min ago) → v2', ''].join('\n'));
    // --csv is refused before the fetch, so the cached catalogs stay as they are.
    const refused = await runCommand(['pricing', '--diff', '--csv'], { transport: mockGateway().transport, env, now: () => T + 90_000 });
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: 'tally: --diff prints changes, not rows: use --json instead of --csv\n' });
    // A plain refresh that brings the same catalog keeps the baseline: --diff still shows the last change.
    await runCommand(['pricing', '--refresh'], { transport: pricingGateway(changed).transport, env, now: () => T + 100_000 });
    const again = await runCommand(['pricing', '--diff', '--json'], { transport: pricingGateway(changed).transport, env, now: () => T + 120_000 });
    expect(JSON.parse(again.stdout)).toMatchObject({ pricing_version_before: 'v1', pricing_version_after: 'v2', compared: true });
    expect(JSON.parse(again.stdout).changes.map((c: { model: string }) => c.model)).toEqual(['gpt-5', 'qwen-image-edit']);
    // Offline: the cached catalog against the one before it.
    const offline = await runCommand(['pricing', '--diff', '--offline'], { transport: mockGateway().transport, env, now: () => T + 130_000 });
    expect(offline.stdout).toBe([...table, 'catalog v1 (fetched 2 min ago) → v2 (cached)', ''].join('\n'));
    // --against pins the baseline: a cached version, or a saved file.
    const pinned = await runCommand(['pricing', '--diff', '--offline', '--against', 'v2', '--json'], { transport: mockGateway().transport, env, now: () => T + 140_000 });
    expect(JSON.parse(pinned.stdout)).toEqual({ pricing_version_before: 'v2', pricing_version_after: 'v2', compared: true, changes: [], impact: null });
    const saved = join(dir, 'saved.json');
    writeFileSync(saved, catalog('v0', '0.00100000'));
    const fromFile = await runCommand(['pricing', '--diff', '--offline', '--against', saved, '--model', 'gpt-5', '--json'], { transport: mockGateway().transport, env, now: () => T + 150_000 });
    expect(JSON.parse(fromFile.stdout)).toEqual({ pricing_version_before: 'v0', pricing_version_after: 'v2', compared: true, changes: [{ model: 'gpt-5', kind: 'repriced', prices: { input_unit_price: ['0.00100000', '0.00700000'] } }], impact: null, impact_note: 'an API key reads the usage a repricing is priced on; this profile has none' });
    const unknown = await runCommand(['pricing', '--diff', '--offline', '--against', 'v9'], { transport: mockGateway().transport, env, now: () => T + 160_000 });
    expect(unknown).toMatchObject({ code: 2, stderr: 'tally: --against "v9" is neither a cached catalog version (cached: v2, v1) nor a file\n' });
  });

  it.each([
    [['pricing', '--against', 'v1'], '--against goes with --diff'],
    [['pricing', '--diff', '--vendor', 'OpenAI'], '--vendor does not narrow --diff'],
    [['pricing', '--diff', '--sort', 'input'], '--diff lists changes by model name; --sort does not apply'],
    [['pricing', '--refresh', '--offline'], '--refresh and --offline contradict each other'],
  ])('exits 2 for %j before any request', async (argv, message) => {
    const result = await runCommand(argv, { transport: mockGateway().transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('keeps two catalog records with the same model_name, in order, and shows every price service_pricing has', async () => {
    const twice = catalog('v1').replace('"data": [', '"data": [{"model_name": "gpt-5", "billing_mode": "per_token", "service_pricing": {"input_unit_price": "1"}, "note": "first"},');
    const result = await runCommand(['pricing', '--json', '--model', 'gpt-5'], { transport: pricingGateway(twice).transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() }, now: () => T });
    const models = JSON.parse(result.stdout).models;
    expect(models.map((m: { note?: string; model_name: string }) => [m.model_name, m.note ?? null])).toEqual([['gpt-5', 'first'], ['gpt-5', null]]);
    const image = catalog('v1').replace('"per_request_price": "0.30000000"', '"per_request_price": "0.30000000", "image_output_price": "0.29400000"').replace('"input_unit_price": "0", "output_unit_price": "0", "cache_read_input_price": "0"', '"input_unit_price": "0.03500000", "output_unit_price": "0", "cache_read_input_price": "0.00875000"');
    const table = await runCommand(['pricing', '--model', 'qwen*'], { transport: pricingGateway(image).transport, env: { TALLY_BASE_URL: GW, TALLY_CONFIG_DIR: stateDir() }, now: () => T, width: 300 });
    expect(table.stdout.split('\n')[2]).toBe('qwen-image-edit  Alibaba  image-generation    ¥35.0000            —          ¥8.7500  per_request_price ¥0.3000, image_output_price ¥0.2940');
  });
});

describe('tally models', () => {
  const list = '{"object": "list", "data": [{"id": "deepseek-reasoner", "object": "model", "created": 1735689600, "owned_by": "gateway", "context_window": 128000, "max_output_tokens": 65536, "reasoning_efforts": ["high"]}, {"id": "gpt-5", "object": "model", "created": 1735776000, "owned_by": "gateway", "context_window": 400000, "max_output_tokens": 128000, "reasoning_efforts": ["none", "low", "medium", "high"], "x": 1.0}, {"id": "private-model", "object": "model", "created": 1735862400, "owned_by": "gateway", "context_window": 32000, "max_output_tokens": 4096, "reasoning_efforts": ["none"]}]}';
  const env = () => ({ TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: stateDir() });

  it('prints the data array unchanged with --json', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/models' }).reply(200, list, json);
    const result = await runCommand(['models', '--json'], { transport: gw.transport, env: env() });
    expect(result.stdout).toContain('"x": 1.0');
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it('shows context, max output and reasoning, never owned_by; with --prices the catalog prices', async () => {
    const gw = pricingGateway(catalog('v1'));
    gw.pool.intercept({ path: '/v1/models' }).reply(200, list, json);
    const result = await runCommand(['models', '--prices'], { transport: gw.transport, env: env(), now: () => T, width: 300 });
    expect(result.stdout).toBe(
      [
        'model              context  max output  reasoning                    input ¥/1M  output ¥/1M  cache read ¥/1M  other prices (¥)',
        '-----------------  -------  ----------  ---------------------------  ----------  -----------  ---------------  ------------------------',
        'deepseek-reasoner  128,000      65,536  always on: high                 ¥4.0000     ¥16.0000          ¥1.0000',
        'gpt-5              400,000     128,000  optional: low, medium, high     ¥8.7500     ¥70.0000          ¥0.8750',
        'private-model       32,000       4,096  none                                  —            —                —  not in the price catalog',
        '3 models this key may call · prices from catalog v1 (fetched now), yuan per 1M tokens',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('gateway');
  });

  it('uses the alternate list with --format alt', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/alt/v1/models' }).reply(200, '{"data": [{"type": "model", "id": "gpt-5", "display_name": "gpt-5", "created_at": "2025-01-02T00:00:00Z"}], "has_more": false, "first_id": "gpt-5", "last_id": "gpt-5"}', json);
    const result = await runCommand(['models', '--format', 'alt'], { transport: gw.transport, env: env() });
    expect(result.stdout).toBe('model  created               display name\n-----  --------------------  ------------\ngpt-5  2025-01-02T00:00:00Z  gpt-5\n1 model this key may call\n');
  });

  it('retries the model-list 429 within the budget, then exits 4 naming the limit', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/models' }).reply(429, '{"error": "rate limit exceeded", "scope": "user"}', { headers: { 'x-ratelimit-limit': '240', 'x-ratelimit-remaining': '-3' } }).times(4);
    const result = await runCommand(['models'], { transport: gw.transport, env: env() });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe('tally: rate limited by gw.test (limit 240 requests per minute) after 4 attempts (4 requests to it this run): rate limit exceeded\n');
    gw.done();
  });
});
