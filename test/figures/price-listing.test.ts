// The price catalog as a figure (figures/price-listing.ts), against a mock gateway: fetched once
// and kept per gateway, served from what was kept within its time to live (nothing asked), asked
// again after it; kept and said (with its age) when the gateway cannot be reached; --offline with
// nothing kept and --refresh with --offline refused in words.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/figures/price-listing.js';
import { readCachedCatalogHead, readPreviousCatalog } from '../../src/settings/pricing-cache.js';
import { GW, KEY, mockGateway, tempDir, testContext } from '../helpers.js';
import { catalogBody, catalogRow } from '../support/catalog.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };
const row = (name: string, input: string) => catalogRow(name, { input });
const catalog = catalogBody;

describe('the price catalog', () => {
  it('fetched once, then served from what was kept until its time to live passes, then asked again', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalog('v1', [row('glm-4.6', '0.002'), row('deepseek-chat', '0.0005')]), json);
      const first = await loadCatalog(testContext({ transport: gw.transport, env, now: () => NOW }).ctx, {}, { whole: false });
      expect({ source: first.source, version: first.pricingVersion, rows: first.rows.map((r) => [r.name, r.input]) }).toEqual({ source: 'live', version: 'v1', rows: [['deepseek-chat', '0.0005'], ['glm-4.6', '0.002']] });
      // Within the time to live (the default is an hour): nothing asked (the mock holds no other answer).
      const kept = await loadCatalog(testContext({ transport: gw.transport, env, now: () => NOW + 10 * 60_000 }).ctx, {}, { whole: false });
      expect({ source: kept.source, version: kept.pricingVersion }).toEqual({ source: 'cache', version: 'v1' });
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalog('v2', [row('glm-4.6', '0.003')]), json);
      const later = await loadCatalog(testContext({ transport: gw.transport, env, now: () => NOW + 2 * 3_600_000 }).ctx, {}, { whole: false });
      expect({ source: later.source, version: later.pricingVersion, rows: later.rows.map((r) => [r.name, r.input]) }).toEqual({ source: 'live', version: 'v2', rows: [['glm-4.6', '0.003']] });
      gw.done();
    } finally {
      state.remove();
    }
  });

  it('a gateway that cannot answer (503): what was kept, with a word of its age; --offline with nothing kept refused', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const empty = testContext({ transport: mockGateway().transport, env, now: () => NOW }).ctx;
      await expect(loadCatalog(empty, { offline: true }, { whole: false })).rejects.toThrow(/no cached price catalog for https:\/\/gw.test; run `tally pricing` once while online/);
      const gw = mockGateway();
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, catalog('v1', [row('glm-4.6', '0.002')]), json);
      await loadCatalog(testContext({ transport: gw.transport, env, now: () => NOW }).ctx, {}, { whole: false });
      gw.pool.intercept({ path: '/api/pricing' }).reply(503, '{"error":"maintenance"}', json);
      const { ctx, io } = testContext({ transport: gw.transport, env, now: () => NOW + 3 * 3_600_000 });
      const loaded = await loadCatalog(ctx, {}, { whole: false });
      expect({ source: loaded.source, version: loaded.pricingVersion }).toEqual({ source: 'cache', version: 'v1' });
      expect(io.stderr).toBe('warning: gw.test answered HTTP 503 for /api/pricing: maintenance; using the catalog cached 3 h ago (version v1)\n');
    } finally {
      state.remove();
    }
  });

  it('sent again unchanged: the kept listing stands (or is made again from the answer when it is gone); changed: the kept catalog becomes the one before', async () => {
    const state = tempDir();
    try {
      const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path };
      const first = catalog('v1', [row('glm-4.6', '0.002'), row('deepseek-chat', '0.0005')]);
      const gw = mockGateway();
      const at = (hours: number) => testContext({ transport: gw.transport, env, now: () => NOW + hours * 3_600_000 }).ctx;
      const names = (loaded: { rows: { name: string; input: string }[] }) => loaded.rows.map((r) => `${r.name} ${r.input}`);
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, first, json);
      await loadCatalog(at(0), {}, { whole: false });
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, first, json);
      const again = await loadCatalog(at(2), {}, { whole: false });
      expect({ source: again.source, fetchedAt: again.fetchedAt, rows: names(again) }).toEqual({ source: 'live', fetchedAt: NOW + 2 * 3_600_000, rows: ['deepseek-chat 0.0005', 'glm-4.6 0.002'] });
      expect(readCachedCatalogHead(state.path, new URL(GW))).toEqual({ fetchedAt: NOW + 2 * 3_600_000, pricingVersion: 'v1' });
      // The listing gone: the same answer is read again from the bytes just received.
      for (const name of readdirSync(join(state.path, 'cache'))) if (name.endsWith('.listing.json')) rmSync(join(state.path, 'cache', name));
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, first, json);
      const rebuilt = await loadCatalog(at(4), {}, { whole: false });
      expect({ source: rebuilt.source, rows: names(rebuilt) }).toEqual({ source: 'live', rows: ['deepseek-chat 0.0005', 'glm-4.6 0.002'] });
      expect(readPreviousCatalog(state.path, new URL(GW))).toBeUndefined();
      // Changed (the same length, one digit): the kept catalog is the one before it, for --diff.
      gw.pool.intercept({ path: '/api/pricing' }).reply(200, first.replace('0.002', '0.003'), json);
      const changed = await loadCatalog(at(6), {}, { whole: false });
      expect(names(changed)).toEqual(['deepseek-chat 0.0005', 'glm-4.6 0.003']);
      expect(readPreviousCatalog(state.path, new URL(GW))).toMatchObject({ fetchedAt: NOW + 4 * 3_600_000, pricingVersion: 'v1' });
      gw.done();
    } finally {
      state.remove();
    }
  });

  it('--refresh with --offline contradict each other', async () => {
    const { ctx } = testContext({ transport: mockGateway().transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY } });
    await expect(loadCatalog(ctx, { refresh: true, offline: true }, { whole: false })).rejects.toThrow('--refresh and --offline contradict each other');
  });
});
