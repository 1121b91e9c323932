// What changed in the price catalog (figures/catalog-diff.ts), against a mock gateway: nothing to
// compare with the first time; then the catalog kept before as the baseline: models added,
// removed and repriced (each price before and after, as sent), and a repricing priced on the
// key's usage; where nothing was repriced, said why there is no impact.
import { describe, expect, it } from 'vitest';
import { loadCatalogDiff } from '../../src/figures/catalog-diff.js';
import { GW, KEY, mockGateway, tempDir, testContext } from '../helpers.js';
import { catalogBody, catalogRow } from '../support/catalog.js';
import { stubKeyUsage } from '../support/usage-gateway.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };

describe('what changed in the price catalog', () => {
  it('the first time nothing to compare; then added, removed and repriced against what was kept, the repricing priced on the key\'s usage', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v1', [catalogRow('glm-4.6', { input: '0.002' }), catalogRow('old-model', { input: '0.001' })]), json);
      const first = await loadCatalogDiff(testContext({ transport: gw.transport, env, now: () => NOW }).ctx, { sort: 'name' });
      expect({ baseline: first.baseline, changes: first.changes }).toEqual({ baseline: undefined, changes: [] });

      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v2', [catalogRow('glm-4.6', { input: '0.003' }), catalogRow('new-model', { input: '0.004' })]), json);
      // 100,000 tokens in and 10,000 out of glm-4.6 over the last 30 days.
      stubKeyUsage(gw, [{ name: 'glm-4.6', prompt_count_tokens: 100_000, output_tokens: 10_000, total_fee: '0.28' }], NOW);
      const diff = await loadCatalogDiff(testContext({ transport: gw.transport, env, now: () => NOW + 60_000 }).ctx, { sort: 'name' });
      expect(diff.baseline?.pricingVersion).toBe('v1');
      expect(Object.fromEntries(diff.changes.map((c) => [c.model, c.kind]))).toEqual({ 'glm-4.6': 'repriced', 'new-model': 'added', 'old-model': 'removed' });
      expect(diff.changes.find((c) => c.model === 'glm-4.6')!.prices).toEqual({ input_unit_price: ['0.002', '0.003'] });
      // Before: 100 x 0.002 + 10 x 0.008 = 0.28; after: 100 x 0.003 + 10 x 0.008 = 0.38.
      const [glm] = diff.impact!.rows;
      expect({ model: glm!.model, before: glm!.before?.toFixed(), after: glm!.after?.toFixed(), change: glm!.change?.toFixed() }).toEqual({ model: 'glm-4.6', before: '0.28', after: '0.38', change: '0.1' });
    } finally {
      state.remove();
    }
  });

  it('nothing repriced: no impact, and why', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v1', [catalogRow('glm-4.6', { input: '0.002' })]), json);
      await loadCatalogDiff(testContext({ transport: gw.transport, env, now: () => NOW }).ctx, { sort: 'name' });
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalogBody('v2', [catalogRow('glm-4.6', { input: '0.002' }), catalogRow('kimi-k2', { input: '0.004' })]), json);
      const diff = await loadCatalogDiff(testContext({ transport: gw.transport, env, now: () => NOW + 60_000 }).ctx, { sort: 'name' });
      expect(diff.changes).toEqual([{ model: 'kimi-k2', kind: 'added' }]);
      expect({ impact: diff.impact, why: diff.why }).toEqual({ impact: undefined, why: 'no model was repriced' });
    } finally {
      state.remove();
    }
  });
});
