// Properties across figures: what two commands say of one window is one figure. Against the
// sandbox in this process, on a first run (the grid learned) and again (known): status's top
// models are usage --by model's over its week; the report's models are usage --by model's over
// its period and the one before; the report's days and total are usage's over the same window.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { runCommand, tempDir } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const fixture = sandboxForFile(NOW);

async function json(args: string[], state: string) {
  const out = await runCommand(args, { env: { ...fixture.env, TALLY_CONFIG_DIR: state }, now: () => NOW });
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout);
}

const byModel = (doc: { models: { model: string; cost?: string; amount?: string }[] }) => Object.fromEntries(doc.models.map((m) => [m.model, new Decimal(m.cost ?? m.amount!).toFixed()]));

describe('one window, one figure', () => {
  it("status's top models are usage --by model's over status's week", async () => {
    const state = tempDir();
    try {
      for (const run of ['first', 'again']) {
        const status = await json(['status', '--json'], state.path);
        const week = await json(['usage', '--by', 'model', '--since', String(status.usage.start), '--until', String(status.usage.end), '--json'], state.path);
        const top = status.top_models.map((m: { model: string; cost: string }) => [m.model, new Decimal(m.cost).toFixed()]);
        expect(top.length, run).toBeGreaterThan(2);
        expect(top, run).toEqual(Object.entries(byModel(week)).sort((a, b) => new Decimal(b[1]).comparedTo(a[1])).slice(0, top.length));
      }
    } finally {
      state.remove();
    }
  });

  it("the report's models and its total are usage's over its period and the one before", async () => {
    const state = tempDir();
    try {
      const report = await json(['report', '--period', 'week', '--json'], state.path);
      const p = report.period;
      const [now, before] = await Promise.all([
        json(['usage', '--by', 'model', '--since', String(p.start), '--until', String(p.end), '--json'], state.path),
        json(['usage', '--by', 'model', '--since', String(p.previous.start), '--until', String(p.previous.end), '--json'], state.path),
      ]);
      const current = byModel(now);
      const previous = byModel(before);
      expect(report.models.length).toBeGreaterThan(2);
      for (const row of report.models as { model: string; current: string; previous: string }[]) {
        expect([row.model, new Decimal(row.current).toFixed(), new Decimal(row.previous).toFixed()]).toEqual([row.model, current[row.model] ?? '0', previous[row.model] ?? '0']);
      }
      const sum = (m: Record<string, string>) => Object.values(m).reduce((a, v) => a.plus(v), new Decimal(0)).toFixed();
      expect([new Decimal(report.models_total.current).toFixed(), new Decimal(report.models_total.previous).toFixed()]).toEqual([sum(current), sum(previous)]);
      const days = await json(['usage', '--bucket', 'day', '--since', String(p.start), '--until', String(p.end), '--json'], state.path);
      expect(new Decimal(report.spend.current).toFixed()).toBe(new Decimal(days.totals.cost).toFixed());
    } finally {
      state.remove();
    }
  });
});
