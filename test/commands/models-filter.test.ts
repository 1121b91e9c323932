// Finding models in one command: --min-context, --reasoning, --sort; an empty result says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCommand } from '../helpers.js';

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sandbox = await startSandbox();
  env = { TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey };
});
afterAll(() => sandbox.close());

describe('tally models: filters and order', () => {
  it('keeps models with a large enough context that can reason, cheapest input first, prices shown', async () => {
    const result = await runCommand(['models', '--min-context', '200000', '--reasoning', '--sort', 'input', '--json'], { env, width: 250 });
    expect(result.code).toBe(0);
    const models = JSON.parse(result.stdout) as { id: string; context_window: number; reasoning_efforts: string[]; catalog_prices: { input_per_1m: string | null } }[];
    expect(models.length).toBeGreaterThan(3);
    for (const m of models) {
      expect(m.context_window).toBeGreaterThanOrEqual(200_000);
      expect(m.reasoning_efforts.some((level) => level !== 'none')).toBe(true);
    }
    const inputs = models.map((m) => Number(m.catalog_prices.input_per_1m));
    expect(inputs).toEqual([...inputs].sort((a, b) => a - b));
    const table = await runCommand(['models', '--min-context', '200000', '--reasoning', '--sort', 'input'], { env, width: 250 });
    expect(table.stdout.split('\n')[0]).toMatch(/^model +context +max output +reasoning +input ¥\/1M/);
    expect(table.stdout).toMatch(new RegExp(`^${models.length} of \\d+ models this key may call · prices from catalog`, 'm'));
  });

  it('sorts by context window, largest first', async () => {
    const models = JSON.parse((await runCommand(['models', '--sort', 'context', '--json'], { env })).stdout) as { context_window: number }[];
    const windows = models.map((m) => m.context_window);
    expect(windows).toEqual([...windows].sort((a, b) => b - a));
  });

  it('says why nothing matched, and what there is, instead of an empty table alone', async () => {
    const result = await runCommand(['models', '--min-context', '5000000'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^no model this key may call has a context of at least 5,000,000 tokens: the largest context is [\d,]+ tokens; \d+ of the \d+ can reason$/m);
  });

  it('refuses the filters on the alt format, which has no context or reasoning fields', async () => {
    const result = await runCommand(['models', '--format', 'alt', '--reasoning'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the alt format has neither');
  });
});

describe('tally pricing: a filter that leaves nothing', () => {
  it('says which filter and what the catalog has instead', async () => {
    const result = await runCommand(['pricing', '--vendor', 'Nope'], { env, width: 400 });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^no model matches these filters; the catalog has vendors: \S.*$/m);
    expect(result.stdout).toContain('OpenAI');
  });
});
