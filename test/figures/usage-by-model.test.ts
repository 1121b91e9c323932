// Spend per model (figures/usage-by-model.ts): records of any naming added up per model, exactly,
// the largest first; an amount that is not a decimal is never read as nothing; and, through the
// CLI, one window asked of the gateway once however many parts of a command read it.
import { describe, expect, it } from 'vitest';
import { spendByModel, spendByPeriod, spendFieldsOf } from '../../src/figures/usage-by-model.js';
import { GW, KEY, mockGateway, runCommand } from '../helpers.js';

describe('spend per model from records', () => {
  it('adds each model up to the digit under names it discovers, the largest first, ties by name', () => {
    const records = [
      { engine: 'b-model', charge: '0.10000001' },
      { engine: 'a-model', charge: '1.5' },
      { engine: 'b-model', charge: '1.39999999' },
      { engine: 'c-model', charge: '0.2' },
    ];
    const fields = spendFieldsOf(records);
    expect(fields).toEqual({ model: 'engine', spend: 'charge' });
    const spent = spendByModel(records, fields);
    expect(spent?.ranked.map((m) => [m.model, m.spend.toFixed()])).toEqual([
      ['a-model', '1.5'],
      ['b-model', '1.5'],
      ['c-model', '0.2'],
    ]);
  });

  it('makes a model unknown where any of its records states no amount it can read (absent, null, a JSON number, text): out of the ranking, never the others\' sum, never zero', () => {
    const fields = { model: 'engine', spend: 'charge' };
    const spent = spendByModel([{ engine: 'a', charge: '1.5' }, { engine: 'b', charge: '2' }, { engine: 'b', charge: null }, { engine: 'c' }, { engine: 'd', charge: 0.4 }, { engine: 'e', charge: 'n/a' }, { engine: 'a', charge: '0.5' }], fields);
    expect(spent?.ranked.map((m) => [m.model, m.spend.toFixed()])).toEqual([['a', '2']]);
    expect(spent?.unknown).toEqual(['b', 'c', 'd', 'e']);
  });

  it('refuses records whose amount is not a decimal (said, never a model spending nothing); no records, no fields', () => {
    expect(() => spendFieldsOf([{ model: 'x', cost: 'n/a' }])).toThrow('the records of usage by model name no model or hold no decimal amount (fields: model, cost); amounts sent as JSON numbers are not read as money, never as zero');
    expect(() => spendFieldsOf([{ model: 'x', cost: 0.5 }])).toThrow(/never as zero/);
    expect(spendFieldsOf([])).toBeUndefined();
  });
});

describe('spend per model, period by period', () => {
  it('each period and the total added up exactly by the one rule, models ranked by their total (ties by name); an unreadable amount makes the model unknown there and in the total, never its other records\' sum', () => {
    const fields = { model: 'llm', spend: 'amt' };
    const page = (records: Record<string, unknown>[]) => ({ found: { records: records as never, extra: {}, pages: 1, more: undefined, scope: 'key' as const } });
    const { byPeriod, unknownByPeriod, totals, unknownTotals, ranked } = spendByPeriod(
      [
        page([{ llm: 'b', amt: '0.10000001' }, { llm: 'a', amt: '1.5' }, { llm: 'b', amt: '0.2' }]),
        page([{ llm: 'c', amt: '1.80000001' }, { llm: 'a', amt: 0.3 }, { llm: 'a', amt: 'n/a' }]),
      ],
      fields,
    );
    expect(byPeriod.map((p) => Object.fromEntries([...p].map(([m, v]) => [m, v.toFixed()])))).toEqual([{ a: '1.5', b: '0.30000001' }, { c: '1.80000001' }]);
    expect(unknownByPeriod.map((set) => [...set])).toEqual([[], ['a']]);
    expect(Object.fromEntries([...totals].map(([m, v]) => [m, v.toFixed()]))).toEqual({ b: '0.30000001', c: '1.80000001' });
    expect([...unknownTotals]).toEqual(['a']);
    expect(ranked).toEqual(['c', 'b', 'a']);
    // A tie goes by name.
    expect(spendByPeriod([page([{ llm: 'z', amt: '1' }, { llm: 'y', amt: '1.00' }])], fields).ranked).toEqual(['y', 'z']);
  });
});

describe('spend per model through a command', () => {
  const NOW = Date.UTC(2026, 10, 21, 18);
  const env = { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY, TZ: 'UTC' };
  const json = { headers: { 'content-type': 'application/json' } };

  it('usage --by model --json: the totals of each model and the window as sent, one request for the window', async () => {
    const gw = mockGateway();
    gw.pool
      .intercept({ path: (p: string) => p.startsWith('/v1/open/usage/models?') })
      .reply(200, JSON.stringify({ scope: 'key', data: [
        { model_id: 'gpt-5-mini', calls: 3, amount: '0.30000000' },
        { model_id: 'deepseek-chat', calls: 1, amount: '1.00000001' },
        { model_id: 'gpt-5-mini', calls: 2, amount: '0.20000000' },
      ] }), json);
    const out = await runCommand(['usage', '--by', 'model', '--since', '2026-11-14', '--until', '2026-11-21', '--utc-offset', '+00:00', '--json'], { transport: gw.transport, env, now: () => NOW });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect({ scope: doc.scope, start: doc.start, end: doc.end, complete: doc.complete, models: doc.models }).toEqual({
      scope: 'key',
      start: Date.UTC(2026, 10, 14) / 1000,
      end: Date.UTC(2026, 10, 21) / 1000,
      complete: true,
      models: [
        { model_id: 'deepseek-chat', calls: 1, amount: '1.00000001' },
        { model_id: 'gpt-5-mini', calls: 5, amount: '0.50000000' },
      ],
    });
    expect(doc.records).toHaveLength(3);
    gw.done();
  });
});
