// Lists paged by page number, as the compatible family's gateways send them ({page, page_size,
// total, items} inside data): a page of them is partial, --all follows the page numbers, and the
// totals row adds amounts and counts only, never identifiers or codes.
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const json = { headers: { 'content-type': 'application/json' } };
const NOW = Date.UTC(2026, 10, 20, 12);

const item = (i: number) => ({ id: 1000 + i, user_id: 7, created_at: 1795132800 + i * 60, type: 2, model_name: i % 2 ? 'gpt-5' : 'glm-4.6', channel: 3, token_id: 12, prompt_tokens: 100, completion_tokens: 10, quota: '0.11000000' });
const page = (p: number, size: number, total: number) =>
  JSON.stringify({ success: true, message: '', data: { page: p, page_size: size, total, items: Array.from({ length: Math.max(0, Math.min(size, total - (p - 1) * size)) }, (_, i) => item((p - 1) * size + i)) } });

function pagedGateway(total: number, size = 10) {
  const gw = mockGateway();
  const asked: string[] = [];
  gw.pool
    .intercept({ path: (path) => path.startsWith('/v1/open/logs') })
    .reply((options) => {
      const url = new URL(String(options.path), GW);
      asked.push(url.search);
      const p = Number(url.searchParams.get('p') ?? url.searchParams.get('page') ?? '1');
      return { statusCode: 200, data: page(p, size, total), responseOptions: json };
    })
    .persist();
  return { gw, asked };
}

describe('logs paged by page number', () => {
  it('says a page is partial when the total is larger than what was seen, and totals it as the page', async () => {
    const { gw } = pagedGateway(57);
    const result = await runCommand(['logs', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.complete).toBe(false);
    const table = await runCommand(['logs', '--wide'], { transport: pagedGateway(57).gw.transport, env, now: () => NOW, width: 200 });
    expect(table.stdout).toMatch(/page total/);
  });

  it('follows the page numbers with --all to the last record, asking p and page', async () => {
    const { gw, asked } = pagedGateway(57);
    const result = await runCommand(['logs', '--all', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.complete).toBe(true);
    const records = doc.data ?? doc.records ?? doc.items;
    expect(records ?? Object.values(doc).find(Array.isArray)).toHaveLength(57);
    expect(asked).toHaveLength(6);
    expect(asked[1]).toMatch(/[?&]p=2(&|$)/);
    expect(asked[1]).toMatch(/[?&]page=2(&|$)/);
  });

  it('totals amounts and counts only: never ids, types, channels or codes', async () => {
    const { gw } = pagedGateway(4);
    const result = await runCommand(['logs', '--wide'], { transport: gw.transport, env, now: () => NOW, width: 250 });
    const total = result.stdout.split('\n').find((l) => /^\s*total\b|\btotal\s/.test(l))!;
    expect(total).toBeDefined();
    // prompt 4×100, completion 4×10, quota 4×0.11: and nothing under user_id (7×4 = 28), type (8), channel (12) or token_id (48).
    expect(total).toContain('400');
    expect(total).toContain('40');
    expect(total).toContain('0.44');
    for (const sum of ['28', ' 8 ', '12', '48', '4,006']) expect(total).not.toContain(sum);
  });
});
