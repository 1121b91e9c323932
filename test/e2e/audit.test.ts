// tally audit as the built binary: the default sandbox charges by its catalog (every day and call
// explained; the calls it bills nothing are listed in the key's favour and fail nothing); the
// off-catalog sandbox charges gpt-4.1-mini at 1.2 times its output price and some failed
// deepseek-chat calls: the audit finds exactly those (by day and by call), says what it cannot
// know, and --fail exits 5; a gateway that cannot be read is exit 4, never a clean audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const work = tempDir();
let clean: Sandbox;
let off: Sandbox;

beforeAll(async () => {
  [clean, off] = await Promise.all([startSandbox({ now: clockStartingAt(NOW) }), startSandbox({ now: clockStartingAt(NOW), offCatalog: true, naming: 'detailed' })]);
});
afterAll(async () => {
  await Promise.all([clean.close(), off.close()]);
  work.remove();
});

const envOf = (gateway: Sandbox, name: string) => ({ TALLY_CONFIG_DIR: `${work.path}/${name}`, TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: gateway.demoKey, TZ: 'UTC' });

interface AuditDoc {
  models: { model: string; charged: string; expected: string | null; days_above: number; days_below: number }[];
  days: { day: number; model: string; verdict: string; charged: string; expected: string | null }[];
  calls: { read: number; priced: number; findings: { kind: string; at: number | null; model: string; charged: string; expected: string | null }[] };
  unexplained: number;
  ok: boolean;
  scope: string | null;
}

describe('tally audit', () => {
  it("finds the default sandbox's charges explained by its catalog, to the last digit; the calls billed nothing are in the key's favour", async () => {
    const result = await runTally(['audit', '--since', '30d', '--json'], { env: envOf(clean, 'clean'), now: NOW });
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as AuditDoc;
    expect(doc.ok).toBe(true);
    expect(doc.scope).toBe('key');
    expect(doc.days.length).toBeGreaterThan(30);
    expect(doc.days.filter((d) => d.verdict === 'above')).toEqual([]);
    // Every day the prices explain is exact: charged = expected.
    for (const d of doc.days.filter((x) => x.verdict === 'match' && x.expected !== null && !x.model.startsWith('qwen3-vl'))) expect(d.charged).toBe(d.expected);
    expect(doc.calls.read).toBeGreaterThan(100);
    expect(doc.calls.findings.map((f) => f.kind)).toEqual(doc.calls.findings.map(() => 'not_charged'));
    expect(doc.calls.findings.every((f) => f.model === 'qwen3-vl-plus')).toBe(true);
    const fail = await runTally(['audit', '--since', '30d', '--fail'], { env: envOf(clean, 'clean'), now: NOW });
    expect(fail.code, fail.stderr).toBe(0);
    expect(fail.stdout).toMatch(/Every charge is explained by the catalog's prices within the tolerance\./);
  });

  it('finds what the off-catalog sandbox charges off its prices: one model above them every day, failed calls charged; --fail exits 5', async () => {
    const env = envOf(off, 'off');
    const result = await runTally(['audit', '--since', '10d', '--json'], { env, now: NOW });
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as AuditDoc;
    expect(doc.ok).toBe(false);
    const mini = doc.models.find((m) => m.model === 'gpt-4.1-mini')!;
    expect(mini.days_above).toBeGreaterThan(0);
    expect(doc.models.filter((m) => m.days_above > 0).map((m) => m.model)).toEqual(['gpt-4.1-mini']);
    const above = doc.calls.findings.filter((f) => f.kind === 'above');
    expect(above.length).toBeGreaterThan(0);
    expect(new Set(above.map((f) => f.model))).toEqual(new Set(['gpt-4.1-mini']));
    const failed = doc.calls.findings.filter((f) => f.kind === 'failed_charged');
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((f) => f.model))).toEqual(new Set(['deepseek-chat']));
    // Each charge once: a call above the prices and its day are one charge; a day above that no call of it explains counts on its own.
    const dayOf = (at: number) => doc.days.find((d) => d.model === 'gpt-4.1-mini' && d.day <= at && at < d.day + 86_400)?.day;
    const explainedDays = new Set(above.map((f) => dayOf(f.at!)));
    const daysAlone = doc.days.filter((d) => d.verdict === 'above' && !explainedDays.has(d.day)).length;
    expect(doc.unexplained).toBe(above.length + failed.length + daysAlone);
    expect(doc.unexplained).toBeLessThan(mini.days_above + above.length + failed.length);

    const table = await runTally(['audit', '--since', '10d', '--fail'], { env, now: NOW });
    expect(table.code).toBe(5);
    expect(table.stdout).toMatch(/^Audit of this key's charges, .* against the catalog sbx-2026\.11\.3 \(a departure: more than 0\.5% and ¥0\.0001 off\)$/m);
    expect(table.stdout).toMatch(/^gpt-4\.1-mini +¥[\d.,]+ +¥[\d.,]+ +\+¥[\d.,]+ \(\d+\.\d\d%\) +\d+ of \d+ above/m);
    expect(table.stdout).toMatch(/the log marks it failed, and it was charged ¥/);
    expect(table.stdout).toMatch(/charges are not explained by the catalog's prices/);
    expect(table.stdout).toMatch(/What tally cannot know: a price that changed inside the window/);
    const markdown = await runTally(['audit', '--since', '10d', '--markdown'], { env, now: NOW });
    expect(markdown.stdout).toMatch(/^### tally audit\n\n❌ /);
    const csv = await runTally(['audit', '--since', '10d', '--csv'], { env, now: NOW });
    expect(csv.stdout.split('\r\n')[0]).toBe('day,model,charged,expected,basis,difference,difference_percent,verdict');
    expect(csv.stdout).toMatch(/\r\n\d{4}-\d\d-\d\d,gpt-4\.1-mini,[\d.]+,[\d.]+,tokens,[\d.]+,[\d.]+,above\r\n/);
    // A wider tolerance than the departure explains the days (the failed calls stay unexplained).
    const wide = JSON.parse((await runTally(['audit', '--since', '10d', '--tolerance', '50%', '--json'], { env, now: NOW })).stdout) as AuditDoc;
    expect(wide.days.filter((d) => d.verdict === 'above')).toEqual([]);
    expect(wide.unexplained).toBe(failed.length);
  });

  it('is exit 4 when the charges cannot be read (never a clean audit), and refuses a tolerance that is no share or amount (exit 2)', async () => {
    const down = await runTally(['audit', '--timeout', '3'], { env: { ...envOf(clean, 'down'), TALLY_BASE_URL: 'http://127.0.0.1:9' }, now: NOW });
    expect(down.code).toBe(4);
    expect(down.stderr).toMatch(/the audit could not be done/);
    const bad = await runTally(['audit', '--tolerance', 'lots'], { env: envOf(clean, 'bad'), now: NOW });
    expect(bad.code).toBe(2);
  });
});
