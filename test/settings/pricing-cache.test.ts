import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PriceRow } from '../../src/domain/catalog.js';
import { fileNameFor, readCachedCatalog, readCachedListing, writeCachedCatalog } from '../../src/settings/pricing-cache.js';
import { tempDirs } from '../helpers.js';

const row = (name: string): PriceRow => ({ name, vendor: 'OpenAI', vendorKeys: ['openai'], types: ['openai'], groups: ['default'], billingMode: 'per_token', perToken: true, input: '0.001', output: '0.002', cacheRead: '', other: [] });
const T = Date.UTC(2026, 10, 22);

describe('the catalog cache files', () => {
  const stateDir = tempDirs();

  it('are named after the base URL, readably and safely', () => {
    expect(fileNameFor(new URL('https://gw.example.com/'))).toBe('https_gw.example.com');
    expect(fileNameFor(new URL('http://127.0.0.1:8080/gateway/v1'))).toBe('http_127.0.0.1_8080_gateway_v1');
    expect(fileNameFor(new URL('https://user:secret@gw.example.com/'))).toBe('https_gw.example.com');
    expect(fileNameFor(new URL(`https://gw.example.com/${'a/'.repeat(200)}`))).toHaveLength(120);
  });

  it('never give one base URL the catalog of another that shares its file name', () => {
    const dir = stateDir();
    const a = new URL('https://gw.example.com/a_b');
    const b = new URL('https://gw.example.com/a/b');
    expect(fileNameFor(a)).toBe(fileNameFor(b));
    writeCachedCatalog(dir, a, { text: '{"data": []}', pricingVersion: 'v1', rows: [row('m')] }, T);
    expect(readCachedListing(dir, a)?.rows).toEqual([row('m')]);
    expect(readCachedCatalog(dir, a)?.body).toEqual({ data: [] });
    expect(readCachedListing(dir, b)).toBeUndefined();
    expect(readCachedCatalog(dir, b)).toBeUndefined();
    expect(readdirSync(join(dir, 'cache')).sort()).toEqual(['pricing-https_gw.example.com_a_b.json', 'pricing-https_gw.example.com_a_b.listing.json']);
  });
});
