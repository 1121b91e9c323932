// Pages of records (figures/records.ts fetchAllPages), against a mock gateway: a continuation
// found at run time (a cursor in a pagination object, a page number with a total) followed to the end under --all, the
// first page's word on whose records they are, more to come said in words without --all, and a
// cursor that repeats refused (exit 1) rather than looped on or ended silently.
import { describe, expect, it } from 'vitest';
import { fetchAllPages } from '../../src/figures/records.js';
import { GW, KEY, mockGateway, testContext } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY };

/** Three pages of two entries, continued by a cursor in a pagination object (`pagination.next`, sent back as `cursor`). */
function cursorPages(options: { repeat?: boolean } = {}) {
  const gw = mockGateway();
  gw.pool
    .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
    .reply((request) => {
      const at = Number(new URL(String(request.path), GW).searchParams.get('cursor') ?? '0');
      const entries = [0, 1].map((i) => ({ seq: at * 2 + i, cost: `0.0${at * 2 + i}` }));
      const next = at < 2 ? String(options.repeat ? 1 : at + 1) : null;
      return { statusCode: 200, data: JSON.stringify({ scope: 'key', entries, pagination: { next, has_more: next !== null } }), responseOptions: json };
    })
    .persist();
  return gw;
}

describe('pages of records', () => {
  it('follows the continuation to the end under --all, every record once and in order', async () => {
    const gw = cursorPages();
    const { ctx } = testContext({ transport: gw.transport, env });
    const found = await fetchAllPages(ctx, await ctx.client(), '/v1/open/logs', { start: '1', end: '2' }, { all: true, maxPages: 10 });
    expect(found.records.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect({ pages: found.pages, more: found.more, scope: found.scope }).toEqual({ pages: 3, more: undefined, scope: 'key' });
  });

  it('without --all, the first page, and that there is more in words', async () => {
    const gw = cursorPages();
    const { ctx } = testContext({ transport: gw.transport, env });
    const found = await fetchAllPages(ctx, await ctx.client(), '/v1/open/logs', {}, { all: false, maxPages: 10 });
    expect(found.records).toHaveLength(2);
    expect(found.more).toMatch(/--all/);
  });

  it('a cursor that comes back again is refused (the rest would loop or go missing)', async () => {
    const gw = cursorPages({ repeat: true });
    const { ctx } = testContext({ transport: gw.transport, env });
    await expect(fetchAllPages(ctx, await ctx.client(), '/v1/open/logs', {}, { all: true, maxPages: 10 })).rejects.toThrow('gw.test returned the same continuation (pagination) twice; stopped after 2 pages');
  });

  it('pages numbered with a total: every page asked', async () => {
    const gw = mockGateway();
    gw.pool
      .intercept({ path: (p) => p.startsWith('/v1/open/logs') })
      .reply((request) => {
        const page = Number(new URL(String(request.path), GW).searchParams.get('page') ?? '1');
        return { statusCode: 200, data: JSON.stringify({ items: [{ id: `p${page}` }], page, total_pages: 3 }), responseOptions: json };
      })
      .persist();
    const { ctx } = testContext({ transport: gw.transport, env });
    const found = await fetchAllPages(ctx, await ctx.client(), '/v1/open/logs', {}, { all: true, maxPages: 10 });
    expect(found.records.map((r) => r.id)).toEqual(['p1', 'p2', 'p3']);
  });
});
