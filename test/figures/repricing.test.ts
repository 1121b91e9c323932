// Repricing (figures/repricing.ts): the key's usage of a model priced at another's catalog prices
// (whatif --swap), against its own prices on the same footing, to the digit; a model the usage
// does not name left out and said; a name the catalog does not hold refused with the one meant;
// --swap checked before anything is asked.
import { describe, expect, it } from 'vitest';
import { keyUsageOver, parseSwap, swapImpact } from '../../src/figures/repricing.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';
import { catalogRow } from '../support/catalog.js';
import { stubKeyUsage } from '../support/usage-gateway.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };
const CATALOG = [catalogRow('claude-sonnet-4.5', { input: '0.021', output: '0.105' }), catalogRow('deepseek-chat', { input: '0.002', output: '0.003' }), catalogRow('gpt-5-mini', { input: '0.0018', output: '0.0144' })];

describe('repricing a model at another\'s prices', () => {
  it("the key's usage of claude-sonnet-4.5 at deepseek-chat's prices: before, after and the change, exactly", async () => {
    const gw = mockGateway();
    stubKeyUsage(gw, [{ model: 'claude-sonnet-4.5', prompt_tokens: 200_000, completion_tokens: 20_000, spent: '6.30000000' }], NOW);
    const { ctx } = testContext({ transport: gw.transport, env, now: () => NOW });
    const impact = await swapImpact(ctx, [parseSwap('claude-sonnet-4.5=deepseek-chat'), parseSwap('gpt-5-mini=deepseek-chat')], CATALOG as never, keyUsageOver(ctx, '30d'));
    // Before: 200 x 0.021 + 20 x 0.105 = 6.3; after: 200 x 0.002 + 20 x 0.003 = 0.46.
    const [row] = impact.rows;
    expect({ model: row!.model, other: row!.other, spent: row!.spent?.toFixed(), before: row!.before?.toFixed(), after: row!.after?.toFixed(), change: row!.change?.toFixed() }).toEqual({ model: 'claude-sonnet-4.5', other: 'deepseek-chat', spent: '6.3', before: '6.3', after: '0.46', change: '-5.84' });
    expect(impact.unused).toEqual(['gpt-5-mini']);
    expect(impact.total.change.toFixed()).toBe('-5.84');
  });

  it('a model the catalog does not hold is refused, with the one meant; a swap not MODEL=OTHER, or of a model with itself, too', async () => {
    const { ctx } = testContext({ transport: mockGateway().transport, env, now: () => NOW });
    const usage = new Promise<never>(() => undefined);
    await expect(swapImpact(ctx, [['claude-sonet-4.5', 'deepseek-chat']], CATALOG as never, usage)).rejects.toMatchObject({ kind: 'usage', hint: expect.stringContaining('claude-sonnet-4.5') });
    expect(() => parseSwap('gpt-5')).toThrow('--swap "gpt-5" is not MODEL=OTHER (e.g. gpt-5=gpt-5-mini)');
    expect(() => parseSwap('gpt-5=gpt-5')).toThrow('--swap "gpt-5=gpt-5" sets a model against itself');
  });
});
