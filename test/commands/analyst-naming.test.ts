// Comparisons, anomalies and repricing against a gateway that names everything otherwise than the
// sandbox: records {name, calls, input_tokens, output_tokens, amount_yuan} inside {items}, and a
// second gateway whose records carry no tokens at all (an impact is then scaled, or said unknown).
import { describe, expect, it } from 'vitest';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
const json = { headers: { 'content-type': 'application/json' } };
const NOW = Date.UTC(2026, 10, 20, 12);
const DAY = 86_400;
const today = Math.floor(NOW / 1000 / DAY) * DAY;

type Usage = { name: string; calls: number; input_tokens?: number; output_tokens?: number; amount_yuan: string };

/** Usage by model per window, by which of two periods the window starts in. */
function gateway(current: Usage[], previous: Usage[], catalog?: unknown) {
  const gw = mockGateway();
  gw.pool
    .intercept({ path: (path) => path.startsWith('/v1/open/usage/models') })
    .reply((options) => {
      const url = new URL(String(options.path), GW);
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const items = start >= today - 6 * DAY ? current : end <= today - 6 * DAY ? previous : [];
      return { statusCode: 200, data: JSON.stringify({ owner: 'key', items }), responseOptions: json };
    })
    .persist();
  gw.pool
    .intercept({ path: (path) => path.startsWith('/v1/open/usage?') })
    .reply((options) => {
      const url = new URL(String(options.path), GW);
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const buckets = [];
      for (let t = Math.max(start, today - 60 * DAY); t < end; t += DAY) buckets.push({ t, n: 3, spent: t === today - 2 * DAY ? '90.00000000' : '10.00000000' });
      return { statusCode: 200, data: JSON.stringify({ buckets }), responseOptions: json };
    })
    .persist();
  if (catalog) gw.pool.intercept({ path: '/api/pricing' }).reply(200, JSON.stringify(catalog), json).persist();
  return gw;
}

const run = (gw: ReturnType<typeof gateway>, args: string[]) => runCommand(args, { transport: gw.transport, env, now: () => NOW });

describe('usage --compare against another naming', () => {
  it('reads the model and the amount by what they are, and marks what appeared and what went', async () => {
    const gw = gateway(
      [{ name: 'gpt-5', calls: 4, input_tokens: 4000, output_tokens: 400, amount_yuan: '0.06300000' }, { name: 'kimi-k2', calls: 1, input_tokens: 1000, output_tokens: 100, amount_yuan: '0.00560000' }],
      [{ name: 'gpt-5', calls: 2, input_tokens: 2000, output_tokens: 200, amount_yuan: '0.03150000' }, { name: 'o3', calls: 1, input_tokens: 1000, output_tokens: 100, amount_yuan: '0.01960000' }],
    );
    const result = await run(gw, ['usage', '--compare', 'previous', '--by', 'model', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.rows).toEqual([
      { model: 'gpt-5', current: '0.063', previous: '0.0315', change: '0.0315', change_percent: '100.00' },
      { model: 'o3', current: '0', previous: '0.0196', change: '-0.0196', change_percent: '-100.00', status: 'gone' },
      { model: 'kimi-k2', current: '0.0056', previous: '0', change: '0.0056', change_percent: null, status: 'new' },
    ]);
    expect(doc.totals).toEqual({ current: '0.0686', previous: '0.0511', change: '0.0175', change_percent: '34.25' });
  });

  it('finds the spike in the series and the model that started, whatever their names', async () => {
    const gw = gateway([{ name: 'kimi-k2', calls: 40, input_tokens: 900000, output_tokens: 90000, amount_yuan: '6.00000000' }, { name: 'free-tier', calls: 9, input_tokens: 5000, output_tokens: 500, amount_yuan: '0.00000000' }], []);
    const result = await run(gw, ['anomalies', '--since', '6d', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.findings.map((f: { kind: string; model?: string; amount: string }) => [f.kind, f.model ?? null, f.amount])).toEqual([
      ['new_model', 'kimi-k2', '6'],
      ['zero_cost', 'free-tier', '0'],
      ['spike', null, '90'],
    ]);
    expect(doc.findings[1].tokens).toBe('5500');
  });
});

const record = (name: string, input: string, output: string) => ({ model_name: name, billing_mode: 'per_token', supported_endpoint_types: ['openai'], service_pricing: { input_unit_price: input, output_unit_price: output } });

describe('whatif without tokens per model', () => {
  it('scales the amount where the prices differ by one ratio, and says it cannot where they do not', async () => {
    const catalog = { success: true, pricing_version: 'v1', data: [record('a', '0.01000000', '0.04000000'), record('b', '0.00500000', '0.02000000'), record('c', '0.00500000', '0.01000000')] };
    const gw = gateway([{ name: 'a', calls: 3, amount_yuan: '12.00000000' }], [], catalog);
    const result = await run(gw, ['whatif', '--swap', 'a=b', '--swap', 'a=c', '--since', '6d', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.rows.map((r: Record<string, unknown>) => [r.other, r.basis, r.before, r.after, r.change])).toEqual([
      ['b', 'scaled', '12', '6', '-6'],
      ['c', 'unknown', null, null, null],
    ]);
    expect(doc.total).toEqual({ before: '12', after: '6', change: '-6', change_percent: '-50.00' });
    const text = await run(gateway([{ name: 'a', calls: 3, amount_yuan: '12.00000000' }], [], catalog), ['whatif', '--swap', 'a=c', '--swap', 'a=b', '--since', '6d']);
    expect(text.stdout).toContain('a: cannot be computed: no tokens per model, and its prices did not change by one ratio');
    expect(text.stdout).toContain('a: its amount scaled by the price ratio (no tokens per model)');
  });
});

describe('amounts that are not decimal text', () => {
  it('refuses records whose amounts are JSON numbers in every view built on them, never reading them as zero', async () => {
    const numbers = JSON.parse('[{"name": "gpt-5", "calls": 4, "amount_yuan": 0.063}]') as Usage[];
    for (const args of [['usage', '--compare', 'previous', '--by', 'model'], ['anomalies', '--since', '6d'], ['export', '--since', '2d', '--csv']]) {
      const result = await run(gateway(numbers, numbers), [...args]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toBe('tally: the records of usage by model name no model or hold no decimal amount (fields: name, calls, amount_yuan); amounts sent as JSON numbers are not read as money, never as zero\n');
    }
  });
});
