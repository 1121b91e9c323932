// The models a key may call (figures/model-list.ts), against a mock gateway: the list as sent
// (fields it does not know kept), filtered by context window and reasoning, ordered by name,
// context or price (the catalog's per-token prices, compared as decimals; models without one last).
import { describe, expect, it } from 'vitest';
import { loadModelList } from '../../src/figures/model-list.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';
import { catalogBody, catalogRow } from '../support/catalog.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const LIST = {
  object: 'list',
  data: [
    { id: 'qwen3-coder-plus', object: 'model', created: 1, owned_by: 'gw', context_window: 1_000_000, max_output_tokens: 65_536, reasoning_efforts: ['none'], tier: 'pro' },
    { id: 'deepseek-reasoner', object: 'model', created: 1, owned_by: 'gw', context_window: 128_000, max_output_tokens: 32_768, reasoning_efforts: ['low', 'high'] },
    { id: 'glm-4.6', object: 'model', created: 1, owned_by: 'gw', context_window: 200_000, max_output_tokens: 8_192 },
  ],
};

function gateway() {
  const gw = mockGateway();
  gw.pool.intercept({ path: '/v1/models' }).reply(200, JSON.stringify(LIST), json);
  return gw;
}

const ids = (models: { id?: unknown }[]) => models.map((m) => m.id);

describe('the models a key may call', () => {
  it('keeps the service\'s order and every field as sent', async () => {
    const gw = gateway();
    const { ctx } = testContext({ transport: gw.transport, env });
    const list = await loadModelList(ctx, { format: 'native' });
    expect(ids(list.models)).toEqual(['qwen3-coder-plus', 'deepseek-reasoner', 'glm-4.6']);
    expect(list.listed[0]!.tier).toBe('pro');
    expect(list.catalog).toBeUndefined();
  });

  it('filters by context window and by reasoning, and orders by name or context', async () => {
    const contexts = await loadModelList(testContext({ transport: gateway().transport, env }).ctx, { format: 'native', minContext: 200_000, sort: 'context' });
    expect(ids(contexts.models)).toEqual(['qwen3-coder-plus', 'glm-4.6']);
    const reasoning = await loadModelList(testContext({ transport: gateway().transport, env }).ctx, { format: 'native', reasoning: true });
    expect(ids(reasoning.models)).toEqual(['deepseek-reasoner']);
    const byName = await loadModelList(testContext({ transport: gateway().transport, env }).ctx, { format: 'native', sort: 'name' });
    expect(ids(byName.models)).toEqual(['deepseek-reasoner', 'glm-4.6', 'qwen3-coder-plus']);
  });

  it('orders by the catalog\'s per-token price, compared as decimals (0.0008 before 0.002), models without one last', async () => {
    const gw = gateway();
    gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v7', [catalogRow('qwen3-coder-plus', { input: '0.002', output: '0.01' }), catalogRow('deepseek-reasoner', { input: '0.0008', output: '0.01' }), catalogRow('glm-4.6')]), json);
    const { ctx } = testContext({ transport: gw.transport, env });
    const list = await loadModelList(ctx, { format: 'native', prices: true, refresh: true, sort: 'input' });
    expect(ids(list.models)).toEqual(['deepseek-reasoner', 'qwen3-coder-plus', 'glm-4.6']);
    expect(list.priceOf(list.models[0]!)?.input).toBe('0.0008');
    gw.done();
  });

  it('a list without a data array, or a model without an id, is the gateway\'s fault in words', async () => {
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/models' }).reply(200, '{"object":"list","data":[{"object":"model"}]}', json);
    await expect(loadModelList(testContext({ transport: gw.transport, env }).ctx, { format: 'native' })).rejects.toThrow(/lists a model without an id/);
  });
});
