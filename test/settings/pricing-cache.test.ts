import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PriceRow } from '../../src/domain/catalog.js';
import { cacheFileId, cachePath } from '../../src/settings/cache-key.js';
import { compareCachedCatalog, keptVersionTimes, readCachedCatalog, readCachedCatalogBytes, readCachedCatalogHead, readCachedListing, readPreviousCatalog, touchCachedCatalog, writeCachedCatalog } from '../../src/settings/pricing-cache.js';
import { tempDirs } from '../helpers.js';

const row = (name: string): PriceRow => ({ name, vendor: 'OpenAI', vendorKeys: ['openai'], types: ['openai'], groups: ['default'], billingMode: 'per_token', perToken: true, input: '0.001', output: '0.002', cacheRead: '', other: [] });
const T = Date.UTC(2026, 10, 22);

describe('the catalog cache files', () => {
  const stateDir = tempDirs();

  it('are named after the base URL, readably and safely, with a hash of what they are keyed by', () => {
    expect(cacheFileId(new URL('https://gw.example.com/'))).toMatch(/^https_gw\.example\.com-[0-9a-f]{12}$/);
    expect(cacheFileId(new URL('http://127.0.0.1:8080/gateway/v1'))).toMatch(/^http_127\.0\.0\.1_8080_gateway_v1-[0-9a-f]{12}$/);
    expect(cacheFileId(new URL(`https://gw.example.com/${'a/'.repeat(200)}`))).toHaveLength(80 + 13);
    // Another origin, path or credential is another file; a credential never appears in it.
    const ids = [
      cacheFileId(new URL('https://gw.example.com/')),
      cacheFileId(new URL('https://gw.example.com:8443/')),
      cacheFileId(new URL('http://gw.example.com/')),
      cacheFileId(new URL('https://gw.example.com/a_b')),
      cacheFileId(new URL('https://gw.example.com/a/b')),
      cacheFileId(new URL('https://gw.example.com/'), 'gw-sk-one'),
      cacheFileId(new URL('https://gw.example.com/'), 'gw-sk-two'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.join(' ')).not.toContain('gw-sk');
  });

  it('never give one base URL the catalog of another that differs only in punctuation', () => {
    const dir = stateDir();
    const a = new URL('https://gw.example.com/a_b');
    const b = new URL('https://gw.example.com/a/b');
    writeCachedCatalog(dir, a, { bytes: Buffer.from('{"data": []}'), pricingVersion: 'v1', rows: [row('m')] }, T);
    expect(readCachedListing(dir, a)?.rows).toEqual([row('m')]);
    expect(readCachedCatalog(dir, a)?.body).toEqual({ data: [] });
    expect(readCachedListing(dir, b)).toBeUndefined();
    expect(readCachedCatalog(dir, b)).toBeUndefined();
    expect(readdirSync(join(dir, 'cache')).sort()).toEqual([`pricing-${cacheFileId(a)}.json`, `pricing-${cacheFileId(a)}.listing.json`]);
  });

  it('give back the catalog bytes as sent, and take a new fetch time without touching them', () => {
    const dir = stateDir();
    const url = new URL('https://gw.example.com/');
    const text = '{"pricing_version": "v7", "data": [{"model_name": "m", "note": "\\",\\"catalog\\":"}]}';
    writeCachedCatalog(dir, url, { bytes: Buffer.from(text), pricingVersion: 'v7', rows: [row('m')] }, T);
    const cached = readCachedCatalogBytes(dir, url)!;
    expect(cached).toMatchObject({ fetchedAt: T, pricingVersion: 'v7' });
    expect(cached.bytes.toString()).toBe(text);
    expect(touchCachedCatalog(dir, url, cached, T + 5000)).toBe(true);
    expect(readCachedCatalogBytes(dir, url)).toMatchObject({ fetchedAt: T + 5000, pricingVersion: 'v7' });
    expect(readCachedCatalogBytes(dir, url)!.bytes.toString()).toBe(text);
    expect(readCachedListing(dir, url)).toEqual({ fetchedAt: T + 5000, pricingVersion: 'v7', rows: [row('m')] });
    expect(readCachedCatalog(dir, url)?.body).toEqual({ pricing_version: 'v7', data: [{ model_name: 'm', note: '","catalog":' }] });
    for (const name of readdirSync(join(dir, 'cache'))) expect(statSync(join(dir, 'cache', name)).mode & 0o777).toBe(0o600);
    rmSync(cachePath(dir, 'pricing', url, undefined, '.listing.json'));
    expect(touchCachedCatalog(dir, url, cached, T + 9000)).toBe(false);
    expect(readFileSync(cachePath(dir, 'pricing', url), 'utf8')).toContain('"fetched_at":"2026-11-22T00:00:05.000Z"');
  });

  it('are compared with a catalog just received a piece at a time: equal, or different anywhere, in size, or not one tally wrote', () => {
    const dir = stateDir();
    const url = new URL('https://gw.example.com/v1');
    // Several pieces of 64 KiB, and a difference in each region: the first piece, across a piece's edge, the last byte.
    const models = Array.from({ length: 4000 }, (_, i) => `{"model_name": "m-${i}", "quota_type": 0, "model_ratio": 1.25}`);
    const text = `{"pricing_version": "v9", "data": [${models.join(', ')}]}`;
    expect(text.length).toBeGreaterThan(3 * 64 * 1024);
    writeCachedCatalog(dir, url, { bytes: Buffer.from(text), pricingVersion: 'v9', rows: [row('m')] }, T);
    expect(compareCachedCatalog(dir, url, Buffer.from(text))).toEqual({ fetchedAt: T, pricingVersion: 'v9', same: true });
    const head = readFileSync(cachePath(dir, 'pricing', url), 'utf8').indexOf(',"catalog":') + ',"catalog":'.length;
    for (const at of [0, 10, 64 * 1024 - head - 1, 64 * 1024 - head, 2 * 64 * 1024 - head + 1, text.length - 1]) {
      const other = Buffer.from(text);
      other[at] = other[at] === 0x31 ? 0x32 : 0x31;
      expect(compareCachedCatalog(dir, url, other), `a byte changed at ${at}`).toMatchObject({ fetchedAt: T, same: false });
    }
    expect(compareCachedCatalog(dir, url, Buffer.from(`${text} `))).toMatchObject({ same: false });
    expect(compareCachedCatalog(dir, url, Buffer.from(text.slice(0, -1)))).toMatchObject({ same: false });
    expect(compareCachedCatalog(dir, url, Buffer.alloc(0))).toMatchObject({ same: false });
    expect(readCachedCatalogHead(dir, url)).toEqual({ fetchedAt: T, pricingVersion: 'v9' });
    // Another gateway's file, none, a file cut short or one that is not a cache: no cache to compare with.
    expect(compareCachedCatalog(dir, new URL('https://gw.example.com/v2'), Buffer.from(text))).toBeUndefined();
    const file = cachePath(dir, 'pricing', url);
    writeFileSync(file, readFileSync(file).subarray(0, -2));
    expect(compareCachedCatalog(dir, url, Buffer.from(text))).toBeUndefined();
    writeFileSync(file, 'not a cache');
    expect(compareCachedCatalog(dir, url, Buffer.from(text))).toBeUndefined();
    expect(readCachedCatalogHead(dir, url)).toBeUndefined();
    rmSync(file);
    expect(compareCachedCatalog(dir, url, Buffer.from(text))).toBeUndefined();
  });

  it('keep the catalog replaced as the one before it, and the same catalog written again replaces nothing', () => {
    const dir = stateDir();
    const url = new URL('https://gw.example.com/');
    const first = '{"pricing_version": "v1", "data": [{"model_name": "a", "model_ratio": 1}]}';
    const second = '{"pricing_version": "v1", "data": [{"model_name": "a", "model_ratio": 2}]}';
    writeCachedCatalog(dir, url, { bytes: Buffer.from(first), pricingVersion: 'v1', rows: [row('a')] }, T);
    writeCachedCatalog(dir, url, { bytes: Buffer.from(first), pricingVersion: 'v1', rows: [row('a')] }, T + 1000);
    expect(readPreviousCatalog(dir, url)).toBeUndefined();
    expect(keptVersionTimes(dir, url)).toEqual([]);
    writeCachedCatalog(dir, url, { bytes: Buffer.from(second), pricingVersion: 'v1', rows: [row('a')] }, T + 2000);
    expect(readPreviousCatalog(dir, url)).toMatchObject({ fetchedAt: T + 1000, body: { data: [{ model_ratio: 1 }] } });
    expect(keptVersionTimes(dir, url)).toEqual([T + 1000]);
    expect(readCachedCatalog(dir, url)).toMatchObject({ fetchedAt: T + 2000, body: { data: [{ model_ratio: 2 }] } });
  });
});
