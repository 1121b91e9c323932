import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type PriceRow, diffCatalogs, filterRows, per1M, priceRow, reasoningLabel, sortRows } from '../../src/domain/catalog.js';
import { type JsonObject, parseJson } from '../../src/domain/json.js';
import { globMatcher } from '../../src/domain/glob.js';
import { fromListing, toListing } from '../../src/domain/listing.js';

const record = (json: string) => parseJson(json) as JsonObject;

describe('per1M', () => {
  it.each([
    ['0.00250000', '2.5'],
    ['0.0025', '2.5'],
    ['0', '0'],
    ['0.00000000', '0'],
    ['1', '1000'],
    ['12.3456789', '12345.6789'],
    ['0.00000001', '0.00001'],
    ['123456789012.12345678', '123456789012123.45678'],
  ])('%s per 1K is %s per 1M, exactly', (per1K, expected) => {
    expect(per1M(per1K)).toBe(expected);
  });
});

describe('priceRow', () => {
  it('follows service_pricing even when the ratios say otherwise', () => {
    const row = priceRow(record('{"model_name": "m", "model_ratio": 99, "completion_ratio": 7, "billing_mode": "per_token", "service_pricing": {"input_unit_price": "0.00400000", "output_unit_price": "0.01600000", "cache_read_input_price": "0.00100000"}}'));
    expect(row).toMatchObject({ input: '0.00400000', output: '0.01600000', cacheRead: '0.00100000', other: [], perToken: true });
    expect([row.input, row.output, row.cacheRead].map(per1M)).toEqual(['4', '16', '1']);
  });

  it('keeps the output price of a model whose input price is 0', () => {
    const row = priceRow(record('{"model_name": "free-in", "model_ratio": 0, "completion_ratio": 1, "billing_mode": "per_token", "service_pricing": {"input_unit_price": "0.00000000", "output_unit_price": "0.00420000", "cache_read_input_price": "0"}}'));
    expect([row.input, row.output].map(per1M)).toEqual(['0', '4.2']);
  });

  it.each(['price_per_call', 'per_request_price', 'call_price'])('shows a per-call price under whatever name it has (%s)', (name) => {
    const row = priceRow(record(`{"model_name": "edit", "billing_mode": "per_call", "service_pricing": {"input_unit_price": "0", "output_unit_price": "0", "cache_read_input_price": "0", "${name}": "0.30000000", "note": "not a price"}}`));
    expect(row.perToken).toBe(false);
    expect(row.billingMode).toBe('per_call');
    expect(row.other).toEqual([{ name, value: '0.30000000' }]);
  });
});

describe('catalog filters and order', () => {
  const models = [
    record('{"model_name": "gpt-5-mini", "owner_by": "OpenAI", "vendor": {"name": "OpenAI", "slug": "openai"}, "enable_groups": ["default"], "supported_endpoint_types": ["openai"], "service_pricing": {"input_unit_price": "0.00175", "output_unit_price": "0.014"}}'),
    record('{"model_name": "gpt-5", "owner_by": "OpenAI", "vendor": {"name": "OpenAI", "slug": "openai"}, "enable_groups": ["vip"], "supported_endpoint_types": ["openai", "anthropic"], "service_pricing": {"input_unit_price": "0.00875", "output_unit_price": "0.07"}}'),
    record('{"model_name": "sora-2", "owner_by": "OpenAI", "enable_groups": ["video"], "supported_endpoint_types": ["video-generation"], "service_pricing": {"video_price_per_second": "0.7"}}'),
    record('{"model_name": "glm-4.6", "owner_by": "Zhipu", "enable_groups": ["default"], "supported_endpoint_types": ["openai"], "service_pricing": {"input_unit_price": "0.002", "output_unit_price": "0.008"}}'),
  ];
  const rows = models.map(priceRow);
  const names = (list: PriceRow[]) => list.map((r) => r.name);

  it('filters by glob, vendor (name, slug or owner_by), endpoint type and group', () => {
    expect(names(filterRows(rows, { model: 'gpt-5*' }))).toEqual(['gpt-5-mini', 'gpt-5']);
    expect(names(filterRows(rows, { model: 'GPT-?' }))).toEqual(['gpt-5']);
    expect(names(filterRows(rows, { vendor: 'zhipu' }))).toEqual(['glm-4.6']);
    expect(names(filterRows(rows, { vendor: 'openai' }))).toEqual(['gpt-5-mini', 'gpt-5', 'sora-2']);
    expect(names(filterRows(rows, { type: 'anthropic' }))).toEqual(['gpt-5']);
    expect(names(filterRows(rows, { group: 'default' }))).toEqual(['gpt-5-mini', 'glm-4.6']);
    expect(globMatcher('a.b')('axb')).toBe(false);
  });

  it('sorts by name or by price, models without that price last', () => {
    expect(names(sortRows(rows, 'name'))).toEqual(['glm-4.6', 'gpt-5', 'gpt-5-mini', 'sora-2']);
    expect(names(sortRows(rows, 'input'))).toEqual(['gpt-5-mini', 'glm-4.6', 'gpt-5', 'sora-2']);
    expect(names(sortRows(rows, 'output'))).toEqual(['glm-4.6', 'gpt-5-mini', 'gpt-5', 'sora-2']);
  });

  it('sorts by name without changing the rows it was given, sorted or not', () => {
    const sorted = sortRows(rows, 'name');
    const again = sortRows(sorted, 'name');
    expect(again).not.toBe(sorted);
    expect(again).toEqual(sorted);
    expect(names(rows)).toEqual(['gpt-5-mini', 'gpt-5', 'sora-2', 'glm-4.6']);
  });

  it('keeps any rows through the cached listing, lists that share a beginning included (property)', () => {
    const text = fc.constantFrom('a', 'b', 'c', '', '1.5', ',', '"');
    const list = fc.array(text, { maxLength: 3 });
    const row = fc.record({
      name: text,
      vendor: text,
      vendorKeys: list,
      types: list,
      groups: list,
      billingMode: text,
      perToken: fc.boolean(),
      input: fc.constantFrom('', '0.5', '2'),
      output: fc.constantFrom('', '0.5', '2'),
      cacheRead: fc.constantFrom('', '0.5'),
      other: fc.array(fc.record({ name: text, value: fc.constantFrom('1', '0.25') }), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), (many) => {
        const listing = toListing(many);
        expect(new Set(listing.lists.map((l) => l.join())).size).toBe(listing.lists.length);
        expect(fromListing(JSON.parse(JSON.stringify(listing)))).toEqual(many);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every field of a row through the cached listing', () => {
    expect(fromListing(JSON.parse(JSON.stringify(toListing(rows))))).toEqual(rows);
    expect(rows[2]).toEqual({ name: 'sora-2', vendor: 'OpenAI', vendorKeys: ['openai'], types: ['video-generation'], groups: ['video'], billingMode: '', perToken: false, input: '', output: '', cacheRead: '', other: [{ name: 'video_price_per_second', value: '0.7' }] });
    expect(fromListing(toListing([]))).toEqual([]);
  });

  it('stores each distinct string and list once, and rejects a listing it did not write', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ ...rows[i % rows.length]!, name: `model-${i}` }));
    const listing = toListing(many);
    expect(listing.names).toHaveLength(50);
    expect(new Set(listing.strings).size).toBe(listing.strings.length);
    expect(new Set(listing.lists.map((l) => l.join())).size).toBe(listing.lists.length);
    expect(fromListing(JSON.parse(JSON.stringify(listing)))).toEqual(many);
    // Whatever the file holds (hand-edited, truncated, written by another version) is checked.
    const broken = (change: (l: Record<string, unknown[] | number>) => void) => {
      const copy = JSON.parse(JSON.stringify(listing));
      change(copy);
      return fromListing(copy);
    };
    expect(broken(() => {})).toEqual(many);
    expect(broken((l) => (l.format = 1))).toBeUndefined();
    expect(broken((l) => (l.rows as number[]).pop())).toBeUndefined();
    expect(broken((l) => ((l.rows as number[])[0] = listing.strings.length))).toBeUndefined();
    expect(broken((l) => ((l.rows as number[])[1] = -1))).toBeUndefined();
    expect(broken((l) => ((l.rows as number[])[5] = 2))).toBeUndefined();
    expect(broken((l) => ((l.lists as number[][])[0] = [999]))).toBeUndefined();
    expect(broken((l) => ((l.rows as unknown[])[2] = 'length'))).toBeUndefined();
    expect(broken((l) => ((l.rows as unknown[])[2] = '__proto__'))).toBeUndefined();
    expect(broken((l) => ((l.rows as number[])[0] = 0.5))).toBeUndefined();
    // Other prices must come in name, value pairs: the vendor-key list ['openai'] is not one.
    expect(broken((l) => ((l.rows as number[])[9] = (l.rows as number[])[1]!))).toBeUndefined();
    // Pairs whose values are not prices are not other prices either: ['openai', 'anthropic'].
    expect(listing.lists[(listing.rows as number[])[12]!]).toHaveLength(2);
    expect(broken((l) => ((l.rows as number[])[9] = (l.rows as number[])[12]!))).toBeUndefined();
    // A price that is not a decimal (one string, shared by many models) is refused wherever it is used.
    expect(broken((l) => ((l.strings as string[])[(l.rows as number[])[16]!] = '1e3'))).toBeUndefined();
    expect(broken((l) => ((l.strings as unknown[])[0] = 7))).toBeUndefined();
    // The listing of earlier versions: one array per model.
    expect(fromListing([['x', 'OpenAI', [], [], [], 'per_token', 1, '1', '2', '3', []]])).toBeUndefined();
    expect(fromListing(null)).toBeUndefined();
  });

  it('lists models added, removed and re-priced', async () => {
    const before = [models[0]!, models[1]!, models[2]!];
    const after = [
      record('{"model_name": "gpt-5-mini", "service_pricing": {"input_unit_price": "0.00175000", "output_unit_price": "0.014"}}'),
      record('{"model_name": "gpt-5", "service_pricing": {"input_unit_price": "0.007", "output_unit_price": "0.07"}}'),
      models[3]!,
    ];
    expect(await diffCatalogs(before, after)).toEqual([
      { model: 'glm-4.6', kind: 'added' },
      { model: 'gpt-5', kind: 'repriced', prices: { input_unit_price: ['0.00875', '0.007'] } },
      { model: 'sora-2', kind: 'removed' },
    ]);
  });
});

describe('reasoningLabel', () => {
  it.each([
    [['none'], 'none'],
    [['high', 'none', 'low'], 'optional: low, high'],
    [['xhigh', 'medium'], 'always on: medium, xhigh'],
    [[], ''],
  ])('%j -> %s', (efforts, label) => {
    expect(reasoningLabel(efforts)).toBe(label);
  });
});

describe('globMatcher', () => {
  it('matches *, ?, [sets], [!negated] and \\ escapes, whole names, case-insensitively, / included', () => {
    const cases: [string, string, boolean][] = [
      ['gpt-5*', 'GPT-5-mini', true],
      ['gpt-5*', 'gpt-4.1', false],
      ['*-mini', 'gpt-5-mini', true],
      ['gpt-?', 'gpt-5', true],
      ['gpt-?', 'gpt-55', false],
      ['[cg]*', 'claude', true],
      ['[!cg]*', 'claude', false],
      ['[a-f]*', 'deepseek', true],
      ['openai/*', 'OpenAI/gpt-5', true],
      ['a\\*b', 'a*b', true],
      ['a\\*b', 'axb', false],
      ['[unclosed', '[unclosed', true],
      ['*', '', true],
      ['?', '', false],
    ];
    for (const [glob, name, expected] of cases) expect([glob, name, globMatcher(glob)(name)]).toEqual([glob, name, expected]);
  });

  it('runs in time linear in the name: *a*a*b* against 20,000-character names', () => {
    const names = Array.from({ length: 200 }, (_, i) => 'a'.repeat(20_000 - i));
    const match = globMatcher('*a*a*b*');
    expect(names.filter(match)).toEqual([]);
    expect(globMatcher('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b')('a'.repeat(100_000))).toBe(false);
  });

  it('agrees with a regular expression on short names (property)', () => {
    // Characters outside the BMP too: `?` takes a whole character, never half of a surrogate pair.
    const alphabet = fc.constantFrom('a', 'b', '-', '/', '.', '\u{1F600}', '\u00e9');
    const token = fc.oneof(alphabet, fc.constant('*'), fc.constant('?'), fc.constant('[ab]'), fc.constant('[!a]'));
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), fc.array(alphabet, { maxLength: 12 }), (tokens, chars) => {
        const glob = tokens.join('');
        const name = chars.join('');
        const source = tokens.map((t) => (t === '*' ? '.*' : t === '?' ? '.' : t === '[ab]' ? '[ab]' : t === '[!a]' ? '[^a]' : t.replace(/[.\\/]/g, '\\$&'))).join('');
        return globMatcher(glob)(name) === new RegExp(`^${source}$`, 'isu').test(name);
      }),
      { numRuns: 3000 },
    );
  });
});
