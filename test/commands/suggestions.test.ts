// What a mistyped or naturally written value gets: the value most likely meant on its own line
// (from the one suggestion rule, for every closed set), or the form accepted as it was meant.
import { manualText } from '../support/manual.js';
import { describe, expect, it } from 'vitest';
import { GW, KEY, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const NOW = Date.UTC(2026, 10, 27, 9);

async function refused(argv: string[]) {
  const result = await runCommand(argv, { env, now: () => NOW });
  expect(result.code, result.stderr).toBe(2);
  return result.stderr.split('\n');
}

describe('a mistyped value suggests the one meant, on a line of its own', () => {
  it.each([
    [['usage', '--tz', 'Asia/Shangai'], 'Asia/Shanghai'],
    [['report', '--period', 'monthly'], 'month'],
    [['usage', '--since', 'yesterdy'], 'yesterday'],
    [['usage', '--bucket', 'wek'], 'week'],
    [['models', '--sort', 'nam'], 'name'],
    [['budget', 'set', 'team', '--amount', '10', '--period', 'monthly'], 'month'],
    [['budget', 'set', 'team', '--amount', '10', '--period', 'week', '--starts', 'mondy'], 'monday'],
    [['sandbox', '--fault', 'rate-limt'], 'rate-limit'],
  ])('%j', async (argv, meant) => {
    const lines = await refused(argv);
    expect(lines[0]).toMatch(/^tally: /);
    expect(lines[1]).toBe(`Did you mean "${meant}"?`);
  });

  it('names the stored profile, budget or destination meant', async () => {
    const state = { TALLY_CONFIG_DIR: (await import('../helpers.js')).freshState() };
    const made = await runCommand(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'], { env: { ...env, ...state }, now: () => NOW });
    expect(made.code, made.stderr).toBe(0);
    const budget = await runCommand(['check', '--budget', 'monthy'], { env: { ...env, ...state }, now: () => NOW });
    expect(budget.stderr).toMatch(/there is no budget "monthy"\nDid you mean "monthly"\?\nBudgets: monthly\./);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${state.TALLY_CONFIG_DIR}/config.json`, JSON.stringify({ profiles: { default: { base_url: GW, api_key: KEY }, work: { base_url: GW, api_key: KEY } } }), { mode: 0o600 });
    const profile = await runCommand(['--profile', 'defualt', 'balance'], { env: { ...state }, now: () => NOW });
    expect(profile.code).toBe(2);
    expect(profile.stderr).toMatch(/there is no profile "defualt"\nDid you mean "default"\?\nStored profiles: default, work\./);
    const switched = await runCommand(['auth', 'switch', 'wrk'], { env: { ...state }, now: () => NOW });
    expect(switched.stderr).toMatch(/Did you mean "work"\?/);
  });

  it('says a share or an amount cannot be negative, in those words', async () => {
    expect((await refused(['check', '--max-daily-used', '-5%']))[0]).toBe('tally: --max-daily-used "-5%": a share cannot be negative');
    expect((await refused(['check', '--min-balance', '-5']))[0]).toBe('tally: --min-balance "-5": an amount cannot be negative');
    expect((await refused(['usage', '--since', '3 months']))[0]).toMatch(/months and years are not spans of a fixed length; use a month \(2026-08\)/);
    const comma = await refused(['check', '--min-balance', '1,5']);
    expect(comma[1]).toBe('Write decimals with a point (12.50); commas only group thousands (1,000).');
  });
});

describe('forms people write are taken as meant', () => {
  it('--amount 1,000 is a thousand yuan, --starts Monday is mon', async () => {
    const state = { TALLY_CONFIG_DIR: (await import('../helpers.js')).freshState() };
    const set = await runCommand(['budget', 'set', 'team', '--amount', '1,000', '--period', 'week', '--starts', 'Monday', '--json'], { env: { ...env, ...state }, now: () => NOW });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ amount: '1000', starts: 'mon' });
  });

  it('--min-context 200k is 200,000 tokens, and a span may be written in words', async () => {
    const [k, plain] = await Promise.all([
      runCommand(['--demo', 'models', '--min-context', '200k', '--json'], { now: () => NOW }),
      runCommand(['--demo', 'models', '--min-context', '200000', '--json'], { now: () => NOW }),
    ]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toBe(plain.stdout);
    const [words, short] = await Promise.all([
      runCommand(['--demo', 'usage', '--since', '7 days', '--json'], { now: () => NOW }),
      runCommand(['--demo', 'usage', '--since', '7d', '--json'], { now: () => NOW }),
    ]);
    expect(words.code, words.stderr).toBe(0);
    expect(JSON.parse(words.stdout).start).toBe(JSON.parse(short.stdout).start);
  });

  it('whatif --swap says which model of the catalog was meant', async () => {
    const result = await runCommand(['--demo', 'whatif', '--swap', 'gpt5=gpt-5-mini'], { now: () => NOW });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[1]).toBe('Did you mean "gpt-5"?');
  });

  it("check --require-model says which of the key's models was meant", async () => {
    const result = await runCommand(['--demo', 'check', '--require-model', 'gpt5', '--json'], { now: () => NOW });
    expect(result.code).toBe(5);
    const check = JSON.parse(result.stdout).checks.find((c: { name: string }) => c.name === 'require-model:gpt5');
    expect(check).toMatchObject({ level: 'fail', detail: 'did you mean gpt-5?' });
  });
});

describe("the README's example of a suggestion", () => {
  it('is what tally prints', async () => {
    const block = /```text\n\$ tally (usage --tz \S+)\n([\s\S]*?)```/.exec(manualText())!;
    const result = await runCommand(block[1]!.split(' '), { env, now: () => NOW });
    expect(result.stderr).toBe(block[2]);
  });
});

describe('footers that add up', () => {
  it('a 120-day window with no data says 120 days, not 0', async () => {
    const { mockGateway } = await import('../helpers.js');
    const gw = mockGateway();
    gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage') }).reply(200, JSON.stringify({ buckets: [], totals: {} }), { headers: { 'content-type': 'application/json' } }).persist();
    for (const argv of [['usage', '--since', '120d', '--utc-offset', '+08:00'], ['usage', '--since', '2026-06-01', '--until', '2026-09-29', '--utc-offset', '+08:00']]) {
      const result = await runCommand(argv, { env, transport: gw.transport, now: () => NOW, width: 200 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).toMatch(/\((120|121) days\)/);
      expect(result.stdout + result.stderr).not.toMatch(/\(0 days\)/);
    }
  });
});

describe('a window is set up by one rule', () => {
  it.each([
    [['anomalies', '--since', 'yesterdy']],
    [['usage', '--by', 'model', '--since', '2026-13']],
    [['usage', '--by', 'model', '--bucket', 'fortnight']],
    [['export', '--since', '3 months']],
    [['whatif', '--swap', 'a=b', '--since', 'soon']],
    [['usage', '--since', '7d', '--compare', '2026-13']],
  ])('refuses a bad value in %j before the gateway is asked anything (the day grid is not known yet)', async (argv) => {
    const { mockGateway } = await import('../helpers.js');
    const gw = mockGateway();
    let asked = 0;
    gw.pool.intercept({ path: () => true }).reply(() => (asked++, { statusCode: 500, data: '{}' })).persist();
    const result = await runCommand(argv, { env, transport: gw.transport, now: () => NOW });
    expect(result.code, result.stderr).toBe(2);
    expect(asked).toBe(0);
  });
});
