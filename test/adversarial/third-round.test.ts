// The third hardening round: the surfaces added since the second (jq, statusline, forecast, logs,
// completion) against a hostile gateway and hostile files. One describe per class of defect.
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, freshState, runCommand } from '../helpers.js';
import { type HostileGateway, type Scenario, startHostile } from './hostile-gateway.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

async function against(scenario: Scenario) {
  const gateway = await startHostile(scenario);
  gateways.push(gateway);
  const env = { TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: KEY, TZ: 'UTC', TALLY_CONFIG_DIR: freshState() };
  const run = (argv: string[], extra: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) => runCommand(argv, { env: { ...env, ...extra.env }, now: () => NOW, tty: extra.tty });
  return { gateway, env, run };
}

describe('where the key may go: continuations', () => {
  it.each([
    ['the public catalog', (base: string) => `${base}/api/pricing`, 'at another endpoint (/api/pricing, not /v1/open/logs)'],
    ['another path of the gateway', () => '/v1/open/balance?cursor=2', 'at another endpoint (/v1/open/balance, not /v1/open/logs)'],
    ['a URL with a user name and password', (base: string) => base.replace('http://', 'http://user:pass@') + '/v1/open/logs?page=2', 'at a URL with a user name or password'],
  ])('follows a continuation only to the endpoint being paged, not to %s (exit 1 naming the field)', async (_name, target, words) => {
    let base = '';
    const { run, gateway } = await against({
      name: 'elsewhere',
      routes: {
        '/v1/open/logs': () => ({ body: `{"data": [{"id": "a", "cost": "1.00"}], "next_page_url": "${target(base)}"}` }),
        '/api/pricing': { body: '{"success": true, "data": [{"model_name": "catalog-row"}]}' },
        '/v1/open/balance': { body: '{}' },
      },
    });
    base = gateway.baseUrl;
    const result = await run(['logs', '--all', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error.message).toContain(`pointed the next page (next_page_url) ${words}; not followed`);
    expect(gateway.requests.map((r) => r.url.pathname)).toEqual(['/v1/open/logs']);
  });

  it('never sends the key to the public catalog, even when a same-origin redirect leads there', async () => {
    const { run, gateway } = await against({
      name: 'redirect',
      routes: {
        '/v1/open/logs': { status: 302, headers: { location: '/api/pricing' }, body: '' },
        '/api/pricing': { body: '{"data": [{"model_name": "x"}]}' },
      },
    });
    await run(['logs']);
    const pricing = gateway.requests.find((r) => r.url.pathname === '/api/pricing');
    expect(pricing?.headers.authorization).toBeUndefined();
  });

  it.each([
    ['{"data": [{"id": "a"}], "has_more": true}', 'has_more'],
    ['{"data": [{"id": "a"}], "has_more": true, "first_id": "a", "last_id": "a"}', 'has_more'],
    ['{"items": [{"id": "a"}], "meta": {"hasMore": true}}', 'meta.hasMore'],
  ])('says that more exists when %s names no continuation: on stdout without --all, exit 1 with --all', async (body, field) => {
    const { run } = await against({ name: 'more', routes: { '/v1/open/logs': { body } } });
    const first = await run(['logs']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`1 record shown: only the first page, more records exist in this window (127.0.0.1:`);
    expect(first.stdout).toContain(`says more records exist (${field}) but names no continuation tally recognises`);
    const json = JSON.parse((await run(['logs', '--json'])).stdout);
    expect(json.complete).toBe(false);
    const all = await run(['logs', '--all']);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain(`says more records exist (${field}) but names no continuation tally recognises; stopped after 1 page`);
  });

  it('says how many records reached stdout when a later page fails', async () => {
    const { run } = await against({
      name: 'fails-late',
      routes: {
        '/v1/open/logs': ({ count }) =>
          count < 4 ? { body: `{"data": [${Array.from({ length: 1000 }, (_, i) => `{"id": "${count}-${i}"}`).join(',')}], "next_cursor": "c${count}"}` } : { status: 500, body: '{"error": "disk on fire"}' },
      },
    });
    const result = await run(['logs', '--all', '--ndjson']);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(3000);
    expect(result.stderr).toContain('disk on fire');
    expect(result.stderr).toContain('(3,000 records of 3 pages were written before this)');
  });
});

describe('a partial list says so, on stdout', () => {
  it('labels the page total as the page\'s and says how to get the rest, under the table', async () => {
    const { run } = await against({ name: 'page', routes: { '/v1/open/logs': { body: '{"data": [{"id": "a", "cost": "1.25"}, {"id": "b", "cost": "2.50"}], "next_cursor": "p2"}' } } });
    const result = await run(['logs']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines).toContain('page total   ¥3.75');
    expect(lines).toContain('2 records shown: only the first page, more records exist in this window (add --all, or --param cursor=p2 for the next page); the totals are of this page');
    expect(result.stdout).not.toMatch(/^total/m);
  });
});
