// Token classes as the built binary: a gateway that reports cache-read and reasoning tokens
// (the sandbox's --token-classes, under each naming's own field names) shows each class per model
// and in total, cache write "not reported" (null, never 0), and what the cache saved, computed
// here again from the records and `tally pricing --json`, to the digit; the default sandbox reports
// input and output only and saves nothing it cannot compute. The audit of such a gateway is clean.
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const work = tempDir();
const gateways: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  work.remove();
});

async function gateway(options: Parameters<typeof startSandbox>[0]) {
  const g = await startSandbox({ now: clockStartingAt(NOW), accountLimit: 1000, ...options });
  gateways.push(g);
  return { TALLY_CONFIG_DIR: `${work.path}/${gateways.length}`, TALLY_BASE_URL: g.baseUrl, TALLY_API_KEY: g.demoKey, TZ: 'UTC' };
}

interface Classes {
  reported: string[];
  not_reported: string[];
  models: Record<string, string | null>[];
  total: Record<string, string | null>;
}

describe('token classes and what the cache saved', () => {
  it.each(['compact', 'detailed', 'iso'] as const)('%s names: every class the gateway reports, per model and in total; the savings to the digit', async (naming) => {
    const env = await gateway({ tokenClasses: true, naming });
    const result = await runTally(['usage', '--by', 'model', '--since', '7d', '--json'], { env, now: NOW });
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as { records: Record<string, unknown>[]; token_classes: Classes };
    const classes = doc.token_classes;
    expect(classes.reported).toEqual(['input', 'output', 'cache_read', 'reasoning']);
    expect(classes.not_reported).toEqual(['cache_write']);
    expect(classes.total.cache_write).toBeNull();
    const prices = JSON.parse((await runTally(['pricing', '--json'], { env, now: NOW })).stdout) as { models?: { model_name: string; service_pricing: Record<string, string> }[]; data?: { model_name: string; service_pricing: Record<string, string> }[] };
    const catalog = new Map((prices.models ?? prices.data ?? []).map((m) => [m.model_name, m.service_pricing]));
    const cacheName = Object.keys(doc.records[0]!).find((n) => /cache/.test(n))!;
    let total = new Decimal(0);
    for (const record of doc.records) {
      const model = String(record.model);
      const read = new Decimal(String(record[cacheName]));
      const p = catalog.get(model)!;
      const saved = read.mul(new Decimal(p.input_unit_price!).minus(p.cache_read_input_price!)).div(1000);
      total = total.plus(saved);
      const row = classes.models.find((m) => m.model === model)!;
      expect(row.cache_read).toBe(read.toFixed());
      expect(row.cache_saved).toBe(saved.toDecimalPlaces(8).toFixed());
    }
    expect(classes.total.cache_saved).toBe(total.toDecimalPlaces(8).toFixed());
    expect(Number(classes.total.cache_read)).toBeGreaterThan(0);
    expect(Number(classes.total.reasoning)).toBeGreaterThan(0);
    const table = await runTally(['usage', '--by', 'model', '--since', '7d'], { env, now: NOW });
    expect(table.stdout).toMatch(/token classes reported: input, output, cache read, reasoning; not reported: cache write/);
    expect(table.stdout).toMatch(/cache: [\d,]+ tokens read from the prompt cache \(\d+\.\d% of input\); saved ¥[\d,.]+ at the catalog's prices/);
    // Cache reads billed at the cache price: the audit finds every charge explained.
    const audit = JSON.parse((await runTally(['audit', '--since', '7d', '--json'], { env, now: NOW })).stdout) as { ok: boolean; days: { verdict: string; model: string }[] };
    expect(audit.days.filter((d) => d.verdict === 'above' || (d.verdict === 'below' && d.model !== 'qwen3-vl-plus'))).toEqual([]);
    expect(audit.ok).toBe(true);
  });

  it("the report says what the cache saved in the period, as usage --by model does over the same window", async () => {
    const env = await gateway({ tokenClasses: true });
    const report = await runTally(['report', '--period', 'week', '--json'], { env, now: NOW });
    expect(report.code, report.stderr).toBe(0);
    const doc = JSON.parse(report.stdout) as { period: { start: number; end: number }; token_classes: Classes };
    expect(Number(doc.token_classes.total.cache_saved)).toBeGreaterThan(0);
    const usage = JSON.parse((await runTally(['usage', '--by', 'model', '--since', String(doc.period.start), '--until', String(doc.period.end), '--json'], { env, now: NOW })).stdout) as { token_classes: Classes };
    expect(doc.token_classes.total).toEqual(usage.token_classes.total);
    const text = await runTally(['report', '--period', 'week'], { env, now: NOW });
    expect(text.stdout).toMatch(/cache: [\d,]+ tokens read from the prompt cache/);
    const markdown = await runTally(['report', '--period', 'week', '--markdown'], { env, now: NOW });
    expect(markdown.stdout).toMatch(/cache: [\d,]+ tokens read from the prompt cache/);
  });

  it('a gateway that reports input and output only: the other classes are not reported (null), and no saving is made up', async () => {
    const env = await gateway({});
    const doc = JSON.parse((await runTally(['usage', '--by', 'model', '--since', '7d', '--json'], { env, now: NOW })).stdout) as { token_classes: Classes };
    expect(doc.token_classes.reported).toEqual(['input', 'output']);
    expect(doc.token_classes.total).toMatchObject({ cache_read: null, cache_write: null, reasoning: null, cache_saved: null, cache_read_share: null });
    expect(doc.token_classes.models.every((m) => m.cache_saved === null)).toBe(true);
  });
});
