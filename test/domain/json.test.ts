import { describe, expect, it, vi } from 'vitest';

// json.ts skips looking for number objects until one exists in the process: each case gets a
// fresh copy of the module, as a run of the binary does.
async function freshJson() {
  vi.resetModules();
  return import('../../src/domain/json.js');
}

describe('stringifyJson keeps every number as it was sent or made', () => {
  it('writes plain parsed numbers natively', async () => {
    const { parseJson, stringifyJson } = await freshJson();
    expect(stringifyJson(parseJson('{"a":1,"b":[2.5,-3],"c":"1.50"}'))).toBe('{"a":1,"b":[2.5,-3],"c":"1.50"}');
  });

  it('keeps the digits of a number only the lossless parser can hold', async () => {
    const { parseJson, stringifyJson } = await freshJson();
    const value = parseJson('{"price":1.50,"big":123456789012345678901234567890,"tiny":1e-7}');
    expect(stringifyJson(value)).toBe('{"price":1.50,"big":123456789012345678901234567890,"tiny":1e-7}');
  });

  it('keeps the digits of a number tally made (a zero with decimals, a total)', async () => {
    const { LosslessNumber, parseJson, stringifyJson } = await freshJson();
    const bucket = parseJson('{"calls":3}') as Record<string, unknown>;
    bucket.cost = new LosslessNumber('0.00');
    expect(stringifyJson([bucket], 1)).toBe('[\n {\n  "calls": 3,\n  "cost": 0.00\n }\n]');
  });

  it('keeps the digits of a zero filled in by the bucket rules', async () => {
    vi.resetModules();
    const { zeroOf } = await import('../../src/domain/buckets.js');
    const { stringifyJson } = await import('../../src/domain/json.js');
    expect(stringifyJson({ tokens: zeroOf({ name: 'tokens', type: 'number', scale: 3 }) })).toBe('{"tokens":0.000}');
  });
});
