// Token classes of spend per model (figures/token-classes.ts): the classes the records report,
// under names discovered at run time, per model and in total; what the prompt cache saved at the
// catalog's prices (asked for only when cache reads are reported), to the ledger's 8 places; and
// why not, in words, where it cannot be computed.
import { describe, expect, it } from 'vitest';
import { loadTokenClasses, tokenClassesJson } from '../../src/figures/token-classes.js';
import type { JsonObject } from '../../src/domain/json.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';
import { catalogBody, catalogRow } from '../support/catalog.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

describe('token classes', () => {
  it('reports the classes the records count, per model and in total, asking for no catalog without cache reads', async () => {
    const gw = mockGateway();
    const { ctx } = testContext({ transport: gw.transport, env });
    const records: JsonObject[] = [
      { model_name: 'glm-4.6', input_tokens: 1200, output_tokens: 300, reasoning_tokens: 40, spend: '0.01200000' },
      { model_name: 'glm-4.6', input_tokens: 800, output_tokens: 100, reasoning_tokens: 0, spend: '0.00800000' },
      { model_name: 'kimi-k2', input_tokens: 50, output_tokens: 5, reasoning_tokens: 5, spend: '0.00100000' },
    ];
    const doc = tokenClassesJson((await loadTokenClasses(ctx, records))!);
    expect(doc.reported).toEqual(['input', 'output', 'reasoning']);
    expect(doc.not_reported).toEqual(['cache_read', 'cache_write']);
    expect(doc.models.map((m) => { const c = m as Record<string, unknown>; return [c.model, c.input, c.output, c.reasoning, c.cache_saved]; })).toEqual([
      ['glm-4.6', '2000', '400', '40', null],
      ['kimi-k2', '50', '5', '5', null],
    ]);
    expect(doc.total).toMatchObject({ input: '2050', output: '405', reasoning: '45', cache_read: null, cache_saved: null });
  });

  it('what the cache saved: cache reads at the input price less the cache price, per 1,000 tokens, at most 8 places', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v9', [catalogRow('deepseek-chat', { input: '0.002', cacheRead: '0.0002' })]), json);
    const { ctx } = testContext({ transport: gw.transport, env });
    const records: JsonObject[] = [
      { model: 'deepseek-chat', prompt_tokens: 10_000, completion_tokens: 2_000, cache_hit_tokens: 7_500, cost: '0.02000000' },
      { model: 'qwen-max', prompt_tokens: 1_000, completion_tokens: 10, cache_hit_tokens: 0, cost: '0.00500000' },
    ];
    const doc = tokenClassesJson((await loadTokenClasses(ctx, records))!);
    // 7,500 x (0.002 - 0.0002) / 1,000 = ¥0.0135; 75% of the input read from the cache.
    const deepseek = doc.models.find((m) => m.model === 'deepseek-chat')!;
    expect({ saved: deepseek.cache_saved, share: deepseek.cache_read_share }).toEqual({ saved: '0.0135', share: '75.0' });
    // A model the catalog does not list: not computed, and why; it read nothing from the cache, so the total still adds up.
    const qwen = doc.models.find((m) => m.model === 'qwen-max')!;
    expect(qwen).toMatchObject({ cache_saved: null, cache_saved_not_computed: 'the catalog does not list qwen-max' });
    expect(doc.total).toMatchObject({ cache_read: '7500', cache_saved: '0.0135' });
    expect(doc.pricing_version).toBe('v9');
  });

  it('records that count no tokens have no classes', async () => {
    const { ctx } = testContext({ transport: mockGateway().transport, env });
    expect(await loadTokenClasses(ctx, [{ model: 'm', cost: '1.00' }])).toBeUndefined();
  });
});
