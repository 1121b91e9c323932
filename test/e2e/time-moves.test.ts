// What a figure about a past period says does not change when time moves on: the same report,
// anomalies, gate names and ledger, run today and again tomorrow (and three days later), give the
// same figures and the same finding identities. And every period that has not ended is marked,
// in every view.
import { describe, expect, it } from 'vitest';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30); // a Wednesday
const DAY = 86_400_000;
const worlds = {
  compact: sandboxForFile(NOW, { accountLimit: 5000 }),
  iso: sandboxForFile(NOW, { accountLimit: 5000, naming: 'iso', dayOffsetMinutes: -300, seed: 2 }),
};

describe.each(Object.entries(worlds))('the clock moves on, %s world', (_name, world) => {
  const run = (args: string[], now = NOW) => runTally(args, { env: world.env, now, cwd: world.state.path });
  const json = async (args: string[], now = NOW) => {
    const result = await run([...args, '--json'], now);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('a past month\'s report is the same tomorrow: its spend, models, days, budgets and anomalies (only "now" moves)', async () => {
    expect((await run(['budget', 'set', 'monthly', '--amount', '500', '--period', 'month'])).code).toBe(0);
    expect((await run(['budget', 'set', 'weekly', '--amount', '80', '--period', 'week'])).code).toBe(0);
    const today = await json(['report', '--month', '2026-10']);
    for (const later of [NOW + DAY, NOW + 3 * DAY]) {
      const then = await json(['report', '--month', '2026-10'], later);
      const { now: _a, ...past } = today;
      const { now: _b, ...again } = then;
      expect(again).toEqual(past);
    }
    // Its budgets are October's (in the budget's own zone): the monthly one is October, the weekly one overlaps its end.
    for (const b of today.budgets) expect(b.start < today.period.end && b.end > today.period.start).toBe(true);
    expect(today.budgets.find((b: { name: string }) => b.name === 'monthly').start_iso).toMatch(/^2026-10-01T/);
    expect(today.period.complete).toBe(true);
    expect(today.period.label).toBe('month 2026-10');
  });

  it('last week\'s report is the same on Thursday as on Wednesday', async () => {
    const wednesday = await json(['report', '--last']);
    const thursday = await json(['report', '--last'], NOW + DAY);
    const { now: _a, ...a } = wednesday;
    const { now: _b, ...b } = thursday;
    expect(b).toEqual(a);
    expect(a.period.title).toMatch(/^week \d{4}-\d{2}-\d{2} \u2013 \d{4}-\d{2}-\d{2}$/);
  });

  it('a finding found again tomorrow in the moved window is the same finding: the same date, model and gate name', async () => {
    const today = await json(['anomalies']);
    const tomorrow = await json(['anomalies'], NOW + DAY);
    const identity = (f: { kind: string; start: number; model?: string }) => `${f.kind}:${f.start}:${f.model ?? ''}`;
    const stillInside = today.findings.filter((f: { kind: string; start: number }) => f.kind !== 'growth' && f.kind !== 'stopped_model' && f.start >= tomorrow.window.start);
    expect(stillInside.length).toBeGreaterThan(0);
    expect(tomorrow.findings.map(identity)).toEqual(expect.arrayContaining(stillInside.map(identity)));
    const gates = async (now: number) => (await json(['check', '--warn-anomalies'], now)).checks.map((c: { name: string }) => c.name) as string[];
    const [a, b] = [await gates(NOW), await gates(NOW + DAY)];
    const shared = a.filter((name) => b.includes(name));
    expect(shared.length).toBeGreaterThanOrEqual(stillInside.length);
  });

  it('the ledger of a past week is the same tomorrow', async () => {
    const window = ['--since', '2026-11-10', '--until', '2026-11-17', '--ndjson'];
    const today = await run(['export', ...window]);
    const tomorrow = await run(['export', ...window], NOW + DAY);
    expect(today.code).toBe(0);
    expect(tomorrow.stdout).toBe(today.stdout);
    expect(today.stdout.split('\n').filter(Boolean).every((l) => JSON.parse(l).complete === true)).toBe(true);
  });

  it('the report\'s headline (the account) and its models (the key) reconcile on the page: a row for the other keys', async () => {
    const doc = await json(['report', '--last']);
    expect(doc.spend.scope).toBe('account');
    expect(doc.models_scope).toBe('key');
    const { Decimal } = await import('../../src/domain/money.js');
    expect(new Decimal(doc.models_total.current).plus(doc.other_keys.current).toFixed()).toBe(new Decimal(doc.spend.current).toFixed());
    const md = (await run(['report', '--last', '--markdown'])).stdout;
    expect(md).toMatch(/^\| \*\*this key\*\* \|.*\n\| other keys \|.*\n\| \*\*the account\*\* \|/m);
    expect((await run(['report', '--last'])).stdout).toMatch(/^this key ¥[\d,.]+ \+ other keys ¥[\d,.]+ = the account's ¥[\d,.]+ \(the spend above\); this key is [\d.]+% of it$/m);
  });

  it('marks every period that has not ended: the comparison, the ledger, the report\'s day and title', async () => {
    const compare = await json(['usage', '--compare', 'previous']);
    expect(compare.current.complete).toBe(false);
    expect(compare.previous.complete).toBe(true);
    const table = await run(['usage', '--compare', 'previous']);
    expect(table.stdout).toContain('current (part) (¥)');
    const csv = await run(['usage', '--compare', 'previous', '--csv']);
    expect(csv.stdout.split('\r\n')[1]).toMatch(/,false$/);
    for (const at of [NOW, NOW + 10 * 3600_000]) {
      const ledger = (await run(['export', '--since', '2d', '--ndjson'], at)).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      expect(ledger.length).toBeGreaterThan(0);
      // A row is complete exactly when its day (on the gateway's grid, in the row's zone) had ended.
      for (const r of ledger) expect(r.complete, r.date).toBe(Date.parse(`${r.date}T00:00:00${r.zone.slice(3)}`) + DAY <= at);
      const shown = await run(['export', '--since', '2d'], at);
      if (ledger.some((r) => !r.complete)) expect(shown.stdout).toMatch(/^\d{4}-\d{2}-\d{2} \(part\)/m);
    }
    const running = await json(['report', '--since', '3d']);
    expect(running.period.complete).toBe(false);
    expect(running.period.title).toMatch(/\(so far\)$/);
    expect(running.daily.at(-1).complete).toBe(false);
  });
});
