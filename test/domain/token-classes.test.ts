// Token classes under the names gateways give them: discovered, each name used once, a class no
// record counts is null (not reported), never 0; a class some record leaves out is null, never
// partial; what the cache saved is cache-read tokens × (input − cache-read price) / 1000, exactly.
import { describe, expect, it } from 'vitest';
import { cacheSavings, classFields, classTotals } from '../../src/domain/token-classes.js';
import { Decimal } from '../../src/domain/money.js';
import type { PriceRow } from '../../src/domain/catalog.js';
import type { JsonObject } from '../../src/domain/json.js';

describe('token classes', () => {
  it.each([
    [{ prompt_tokens: 10, completion_tokens: 5, cost: '0.1' }, { input: 'prompt_tokens', output: 'completion_tokens' }],
    [{ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3, cache_creation_input_tokens: 2 }, { input: 'input_tokens', output: 'output_tokens', cache_read: 'cache_read_input_tokens', cache_write: 'cache_creation_input_tokens' }],
    [{ prompt_tokens: 10, completion_tokens: 5, cached_tokens: 4, reasoning_tokens: 2, token_price: '0.1' }, { input: 'prompt_tokens', output: 'completion_tokens', cache_read: 'cached_tokens', reasoning: 'reasoning_tokens' }],
    [{ promptTokens: 10, completionTokens: 5, cacheHitTokens: 4, thinking_tokens: 1 }, { input: 'promptTokens', output: 'completionTokens', cache_read: 'cacheHitTokens', reasoning: 'thinking_tokens' }],
  ])('finds the classes of %j', (record, expected) => {
    expect(classFields([record])).toEqual(expected);
  });

  it('adds each class up; a class not reported, or left out by a record, is null', () => {
    const records: JsonObject[] = [{ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 }, { input_tokens: '7', output_tokens: 1 }];
    const totals = classTotals(records, classFields(records));
    expect(totals.input?.toFixed()).toBe('17');
    expect(totals.output?.toFixed()).toBe('6');
    expect(totals.cache_read).toBeNull();
    expect(totals.reasoning).toBeNull();
  });

  it('prices what the cache saved exactly, and says why it cannot where a price or the class is missing', () => {
    const row = { name: 'm', input: '0.003', cacheRead: '0.0003' } as PriceRow;
    const totals = { input: new Decimal(10_000), output: new Decimal(1), cache_read: new Decimal(4_000), cache_write: null, reasoning: null };
    expect(cacheSavings(totals, row, 'm')).toEqual({ saved: new Decimal('0.0108'), share: new Decimal(40) });
    expect(cacheSavings({ ...totals, cache_read: null }, row, 'm')).toMatchObject({ saved: null, why: 'the gateway does not report cache-read tokens' });
    expect(cacheSavings(totals, { ...row, cacheRead: '' }, 'm')).toMatchObject({ saved: null, why: 'the catalog states no cache-read price for m' });
    expect(cacheSavings(totals, undefined, 'm')).toMatchObject({ saved: null });
  });
});
