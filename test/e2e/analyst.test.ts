// What changed, and why, on the sandbox's world (its seeds hold a spike, a model that starts, one
// that stops, calls at no cost, and a repricing), in three namings, grids and histories: each
// comparison, finding and impact equals what the plain views of the same window say.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { CATALOG } from '../../src/sandbox/seed.js';
import { PREVIOUS_PRICES } from '../../src/sandbox/catalog.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const DAY = 86_400_000;
const worlds = {
  compact: sandboxForFile(NOW, { accountLimit: 5000, repriceAfter: 1 }),
  detailed: sandboxForFile(NOW, { accountLimit: 5000, naming: 'detailed', dayOffsetMinutes: 0, seed: 1, repriceAfter: 1 }),
  iso: sandboxForFile(NOW, { accountLimit: 5000, naming: 'iso', dayOffsetMinutes: -300, seed: 2, repriceAfter: 1 }),
};
type World = (typeof worlds)['compact'];

const schemas = fileURLToPath(new URL('../../schemas', import.meta.url));
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: false });
for (const file of readdirSync(schemas)) ajv.addSchema(JSON.parse(readFileSync(`${schemas}/${file}`, 'utf8')), file);
/** The document's schema errors (none when it holds). */
function schemaErrors(file: string, document: unknown): string[] {
  const validate = ajv.getSchema(file)!;
  return validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

async function json(world: World, args: string[], now = NOW) {
  const result = await runTally([...args, '--json'], { env: world.env, now });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}
const money = (doc: { totals: Record<string, unknown> }) => new Decimal(Object.values(doc.totals).find((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) as string);
/** Spend per model of a `usage --by model` document (its records' cost field). */
const perModel = (doc: { records: Record<string, unknown>[] }) => new Map(doc.records.map((r) => [String(r.model), new Decimal(String(r.cost))]));

describe.each(Object.entries(worlds))('usage --compare, %s world', (_name, world) => {
  it.each([[[]], [['--last', 'week']], [['--month', '2026-10']], [['--since', '2026-10-01', '--until', '2026-10-15']]])('%j: the totals are what usage says of each window, and the change is their difference', async (window) => {
    const doc = await json(world, ['usage', '--compare', 'previous', ...window]);
    const current = money(await json(world, ['usage', '--since', String(doc.current.start), '--until', String(doc.current.end)]));
    const previous = money(await json(world, ['usage', '--since', String(doc.previous.start), '--until', String(doc.previous.end)]));
    expect(doc.totals.current).toBe(current.toFixed());
    expect(doc.totals.previous).toBe(previous.toFixed());
    expect(doc.totals.change).toBe(current.minus(previous).toFixed());
    expect(doc.scope).toBe('account');
    if (window[0] === '--month') expect(doc.previous.start_iso.slice(0, 10)).toMatch(/^2026-09-01/);
    else expect(doc.previous.end).toBe(doc.current.start);
  });

  it('per model: every model of either period, the largest change first, new and gone marked, adding up to the totals', async () => {
    const doc = await json(world, ['usage', '--compare', 'previous', '--by', 'model', '--since', '30d']);
    const now = perModel(await json(world, ['usage', '--by', 'model', '--since', String(doc.current.start), '--until', String(doc.current.end)]));
    const before = perModel(await json(world, ['usage', '--by', 'model', '--since', String(doc.previous.start), '--until', String(doc.previous.end)]));
    expect(doc.scope).toBe('key');
    expect(new Set(doc.rows.map((r: { model: string }) => r.model))).toEqual(new Set([...now.keys(), ...before.keys()]));
    for (const row of doc.rows) {
      expect(row.current).toBe((now.get(row.model) ?? new Decimal(0)).toFixed());
      expect(row.previous).toBe((before.get(row.model) ?? new Decimal(0)).toFixed());
      const [a, b] = [now.get(row.model) ?? new Decimal(0), before.get(row.model) ?? new Decimal(0)];
      expect(row.status).toBe(b.isZero() && !a.isZero() ? 'new' : a.isZero() && !b.isZero() ? 'gone' : undefined);
    }
    const sizes = doc.rows.map((r: { change: string }) => new Decimal(r.change).abs());
    for (let i = 1; i < sizes.length; i++) expect(sizes[i].lte(sizes[i - 1])).toBe(true);
    expect(doc.rows.find((r: { model: string }) => r.model === 'o3')).toMatchObject({ status: 'new', previous: '0', change_percent: null });
    expect(doc.rows.find((r: { model: string }) => r.model === 'gpt-4.1')).toMatchObject({ status: 'gone', current: '0', change_percent: '-100.00' });
    const sum = doc.rows.reduce((a: Decimal, r: { current: string }) => a.plus(r.current), new Decimal(0));
    expect(doc.totals.current).toBe(sum.toFixed());
  });

  it('prints the same comparison as CSV and as a Markdown table', async () => {
    const csv = await runTally(['usage', '--compare', 'previous', '--by', 'model', '--csv'], { env: world.env, now: NOW });
    expect(csv.stdout.split(/\r?\n/)[0]).toBe('model,previous,current,change,change_percent,status,previous_start,previous_end,current_start,current_end,current_complete');
    const md = await runTally(['usage', '--compare', 'previous', '--by', 'model', '--markdown'], { env: world.env, now: NOW });
    expect(md.stdout).toMatch(/^### tally usage --compare\n\n\| model \| previous \| current \| change \| change % \|\n\| --- \| ---: \| ---: \| ---: \| ---: \|\n/);
    expect(md.stdout).toMatch(/^\| \*\*total\*\* \| ¥[\d,.]+ \| ¥[\d,.]+ \| [+-]?¥[\d,.]+ \| [+-]?[\d.]+%|—|new|gone \|$/m);
  });
});

describe.each(Object.entries(worlds))('tally anomalies, %s world', (_name, world) => {
  it('finds the seeded story, each finding with its evidence, and exits 0', async () => {
    const doc = await json(world, ['anomalies']);
    const kinds = doc.findings.map((f: { kind: string; model?: string }) => `${f.kind}${f.model ? `:${f.model}` : ''}`);
    expect(kinds).toEqual(expect.arrayContaining(['new_model:o3', 'new_model:claude-opus-4.1', 'stopped_model:gpt-4.1', 'zero_cost:qwen3-vl-plus']));
    const spikes = doc.findings.filter((f: { kind: string }) => f.kind === 'spike');
    expect(spikes).toHaveLength(1);
    const [spike] = spikes;
    // Three days before the sandbox's now, on the gateway's grid: what `usage` says of that day.
    const day = await json(world, ['usage', '--since', String(spike.start), '--until', String(spike.start + 86_400)]);
    expect(spike.amount).toBe(money(day).toFixed());
    expect(new Decimal(spike.ratio).gte(2)).toBe(true);
    expect(new Decimal(spike.amount).gte(new Decimal(spike.baseline).mul(spike.ratio).minus('0.0001'))).toBe(true);
    const threeDaysAgo = (NOW - 3 * DAY) / 1000;
    expect(spike.start <= threeDaysAgo && threeDaysAgo < spike.start + 86_400).toBe(true);
    for (const f of doc.findings) expect(f.message).toEqual(expect.any(String));
  });

  it('dates each finding by its event, never by the window: the first (or last) day the model cost money, as usage by model says day by day; a spike names its models', async () => {
    const doc = await json(world, ['anomalies']);
    const daily = async (window: { start: number; end: number }) => (await json(world, ['usage', '--by', 'model', '--bucket', 'day', '--since', String(window.start), '--until', String(window.end)])).periods as { start: number; records: Record<string, unknown>[] }[];
    const spentOn = (p: { records: Record<string, unknown>[] }, model: string) =>
      p.records.some((r) => Object.values(r).includes(model) && Object.entries(r).some(([k, v]) => /cost|spend|amount|yuan/i.test(k) && typeof v === 'string' && new Decimal(v).gt(0)));
    const within = await daily(doc.window);
    for (const f of doc.findings.filter((x: { kind: string }) => x.kind === 'new_model')) {
      const first = within.find((p) => spentOn(p, f.model));
      expect(f.start, f.model).toBe(first!.start);
      expect(f.start).toBeGreaterThan(doc.window.start);
    }
    const stopped = doc.findings.find((x: { kind: string }) => x.kind === 'stopped_model');
    const before = await daily({ start: doc.window.start - (doc.window.end - doc.window.start), end: doc.window.start });
    expect(stopped.start).toBe(before.filter((p) => spentOn(p, stopped.model)).at(-1)!.start);
    const spike = doc.findings.find((x: { kind: string }) => x.kind === 'spike');
    expect(spike.models[0]).toEqual({ model: 'claude-opus-4.1', amount: expect.stringMatching(/^\d+\.\d+$/) });
    expect(spike.message).toContain(`claude-opus-4.1 ¥`);
    // Messages read as the screen does (amounts to the fen); the exact figures are the fields.
    for (const f of doc.findings) expect(f.message).not.toMatch(/¥[\d,]+\.\d{3,}/);
  });

  it('finds no spike below the minimum amount, and none in a quiet window', async () => {
    const high = await json(world, ['anomalies', '--min-amount', '100000']);
    expect(high.findings.filter((f: { kind: string }) => f.kind !== 'zero_cost')).toEqual([]);
  });

  it('gates CI: --anomalies fails with one check per finding, --warn-anomalies warns', async () => {
    const failing = await runTally(['check', '--anomalies', '--json'], { env: world.env, now: NOW });
    expect(failing.code).toBe(5);
    const checks = JSON.parse(failing.stdout).checks;
    expect(checks.length).toBeGreaterThanOrEqual(5);
    expect(checks.every((c: { name: string; level: string }) => c.name.startsWith('anomalies:') && c.level === 'fail')).toBe(true);
    const warning = await runTally(['check', '--warn-anomalies'], { env: world.env, now: NOW });
    expect(warning.code).toBe(0);
    expect(warning.stdout).toMatch(/^WARN {2}warn-anomalies:spike:\S+ +a day of ¥[\d,.]+, [\d.]+× the median/m);
  });
});

describe('growth, status and the statusline on the compact world', () => {
  const world = worlds.compact;
  it('check --max-growth sets the window against the one before it, with the amounts on the line', async () => {
    const doc = await json(world, ['usage', '--compare', 'previous']);
    const percent = new Decimal(doc.totals.change_percent);
    const below = percent.minus(1).toDecimalPlaces(0, Decimal.ROUND_DOWN).toFixed();
    const above = percent.plus(1).toDecimalPlaces(0, Decimal.ROUND_UP).toFixed();
    const fail = await runTally(['check', '--max-growth', below, '--json'], { env: world.env, now: NOW });
    expect(fail.code).toBe(5);
    const failed = JSON.parse(fail.stdout).checks[0];
    expect(failed).toMatchObject({ name: 'max-growth', level: 'fail', limit: below, unit: 'percent' });
    // The exact change in JSON (the comparison shows it to two places): the same quantity.
    expect(new Decimal(failed.actual).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2)).toBe(doc.totals.change_percent);
    // At a limit of the same precision as the change, the line shows enough digits to tell them apart.
    const close = new Decimal(failed.actual).toDecimalPlaces(3, Decimal.ROUND_DOWN);
    const near = await runTally(['check', '--max-growth', close.toFixed(3)], { env: world.env, now: NOW });
    if (!close.eq(failed.actual)) expect(near.stdout).not.toMatch(new RegExp(`actual ${close.toFixed(3).replace('.', '\\.')}%, limit ${close.toFixed(3).replace('.', '\\.')}%`));
    const pass = await runTally(['check', '--max-growth', above], { env: world.env, now: NOW });
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/^PASS {2}max-growth {2}actual -?[\d.]+%, limit \d+% \(¥[\d,.]+ over window .* against ¥[\d,.]+ over window/);
  });

  it('status and {alert} say so on the day of the spike, and nothing on a usual day', async () => {
    const spikeDay = NOW - 3 * DAY + 2 * 3600_000;
    const status = await json(world, ['status'], spikeDay);
    expect(status.alert).toMatchObject({ kind: 'spike' });
    const text = await runTally(['status'], { env: world.env, now: spikeDay });
    expect(text.stdout).toMatch(/^Alert +today: a day of ¥[\d,.]+, [\d.]+× the median ¥[\d,.]+ of the 14 days before \(tally anomalies\)$/m);
    const line = await runTally(['statusline', '--check', '--format', '{balance}|{alert}|'], { env: { ...world.env, TALLY_CONFIG_DIR: `${world.state.path}/alert` }, now: spikeDay });
    expect(line.stdout).toMatch(/^¥[\d,.]+\|spike ¥[\d,.]+ today \(\d+×\)\|$/m);
    expect((await json(world, ['status'])).alert).toBeNull();
    const usual = await runTally(['statusline', '--check', '--format', '{balance}|{alert}|'], { env: { ...world.env, TALLY_CONFIG_DIR: `${world.state.path}/usual` }, now: NOW });
    expect(usual.stdout).toMatch(/^¥[\d,.]+\|\|$/m);
  });
});

describe.each(Object.entries(worlds))('what a price change costs, %s world', (_name, world) => {
  it("prices the repricing on the key's tokens, lists the unused, and gates it", async () => {
    const env = { ...world.env, TALLY_CONFIG_DIR: `${world.state.path}/prices` };
    // The first catalog request gets the previous version: it is cached, then the repricing arrives.
    expect((await runTally(['pricing', '--refresh'], { env, now: NOW })).code).toBe(0);
    const diff = await runTally(['pricing', '--diff', '--json'], { env, now: NOW });
    expect(diff.code, diff.stderr).toBe(0);
    const doc = JSON.parse(diff.stdout);
    expect(schemaErrors('pricing-diff.schema.json', doc)).toEqual([]);
    expect(doc.impact).not.toBeNull();
    expect(doc.changes.map((c: { model: string }) => c.model).sort()).toEqual(Object.keys(PREVIOUS_PRICES).sort());
    const usage = await json(world, ['usage', '--by', 'model', '--since', String(doc.impact.window.start), '--until', String(doc.impact.window.end)]);
    const records = new Map<string, Record<string, number>>(usage.records.map((r: Record<string, number>) => [String(r.model), r]));
    for (const row of doc.impact.rows) {
      const used = records.get(row.model)!;
      const now = CATALOG.find((m) => m.name === row.model)!;
      const old = { ...now, ...PREVIOUS_PRICES[row.model] };
      const at = (p: { input: string; output: string }) => new Decimal(used.prompt_tokens!).mul(p.input).plus(new Decimal(used.completion_tokens!).mul(p.output)).div(1000);
      expect(row.basis).toBe('tokens');
      expect(row.before).toBe(at(old).toDecimalPlaces(8).toFixed());
      expect(row.after).toBe(at(now).toDecimalPlaces(8).toFixed());
    }
    expect(doc.impact.unused).toContain('gpt-5');
    // --usage-since chooses the usage the repricing is priced on.
    const week = JSON.parse((await runTally(['pricing', '--diff', '--offline', '--against', doc.pricing_version_before, '--usage-since', '7d', '--json'], { env, now: NOW })).stdout);
    expect(week.impact.window.start).toBe((await json(world, ['usage', '--since', '7d'])).start);
    const change = doc.impact.rows.reduce((a: Decimal, r: { change: string }) => a.plus(r.change), new Decimal(0));
    expect(new Decimal(doc.impact.total.change).minus(change).abs().lte('0.00000010')).toBe(true);
    // The gate measures the same repricing, and fails above its impact.
    const gate = await runTally(['check', '--max-price-impact', '0', '--json'], { env, now: NOW });
    const measured = JSON.parse(gate.stdout).checks[0];
    expect(measured.actual).toBe(new Decimal(doc.impact.total.change).toDecimalPlaces(8).toFixed());
  });

  it('never passes a price-impact gate with nothing to compare with: exit 1 "not measured" (--fail-open: a WARN), and --against pins the baseline', async () => {
    const env = { ...world.env, TALLY_CONFIG_DIR: `${world.state.path}/first-run` };
    const first = await runTally(['check', '--max-price-impact', '0.01'], { env, now: NOW });
    expect(first.code).toBe(1);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/no earlier catalog version is cached to compare with, so the impact of a repricing cannot be measured; pin one with --against VERSION\|FILE/);
    // (That run cached the catalog it saw: a later run compares with it. A first run elsewhere, with --fail-open:)
    const open = await runTally(['check', '--max-price-impact', '0.01', '--fail-open', '--json'], { env: { ...env, TALLY_CONFIG_DIR: `${world.state.path}/first-run-open` }, now: NOW });
    expect(open.code).toBe(0);
    expect(JSON.parse(open.stdout).checks[0]).toMatchObject({ name: 'max-price-impact', level: 'warn', actual: null });
    // A saved catalog pins what the live one is compared with.
    const saved = `${world.state.path}/catalog-before.json`;
    const fresh = { ...world.env, TALLY_CONFIG_DIR: `${world.state.path}/pinned` };
    const { writeFileSync } = await import('node:fs');
    writeFileSync(saved, (await runTally(['pricing', '--json'], { env: fresh, now: NOW })).stdout);
    const pinned = await runTally(['check', '--max-price-impact', '0', '--against', saved, '--json'], { env: fresh, now: NOW });
    expect(JSON.parse(pinned.stdout).checks[0].actual, pinned.stderr).toMatch(/^-?\d+(\.\d+)?$/);
    expect((await runTally(['check', '--min-balance', '1', '--against', saved], { env: fresh, now: NOW })).code).toBe(2);
  });
});

describe('tally whatif', () => {
  const world = worlds.compact;
  it("prices the key's usage of a model at another's catalog prices, with what the other cannot serve", async () => {
    const doc = await json(world, ['whatif', '--swap', 'claude-sonnet-4.5=deepseek-chat', '--swap', 'gpt-5-mini=gpt-5-nano']);
    const usage = await json(world, ['usage', '--by', 'model', '--since', String(doc.window.start), '--until', String(doc.window.end)]);
    for (const row of doc.rows) {
      const used = usage.records.find((r: { model: string }) => r.model === row.model);
      const other = CATALOG.find((m) => m.name === row.other)!;
      const after = new Decimal(used.prompt_tokens).mul(other.input).plus(new Decimal(used.completion_tokens).mul(other.output)).div(1000);
      expect(row.after).toBe(after.toDecimalPlaces(8).toFixed());
      expect(row.spent).toBe(new Decimal(used.cost).toFixed());
    }
    const sonnet = doc.rows.find((r: { model: string }) => r.model === 'claude-sonnet-4.5');
    expect(sonnet.notes).toEqual(['context window 128,000 tokens, not 1,000,000', 'no reasoning level low, medium, high']);
    expect(new Decimal(sonnet.change).isNegative()).toBe(true);
    expect(schemaErrors('whatif.schema.json', doc)).toEqual([]);
    expect(schemaErrors('status.schema.json', await json(world, ['status'], NOW - 3 * DAY + 2 * 3600_000))).toEqual([]);
    const bad = await runTally(['whatif', '--swap', 'gpt-5'], { env: world.env, now: NOW });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('tally: --swap "gpt-5" is not MODEL=OTHER (e.g. gpt-5=gpt-5-mini)\n');
  });
});
