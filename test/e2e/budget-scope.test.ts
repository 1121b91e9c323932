// Whose budget it is, end to end: several keys on one account, a budget of the whole account's
// spend beside one of a key's own and one of some models, each counted from the figure that is
// theirs (the usage series, the key's spend per model); a gateway that does not say whose its
// spend per model is leaves a key's budget not measured (a gate: exit 1, or --fail-open's WARN),
// never the account's figure under the key's name. And the alerts close what they opened: a new
// period resolves the last one's, a finding that left the window is resolved.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { KEYS } from '../../src/sandbox/seed.js';
import { globMatcher } from '../../src/domain/glob.js';
import { runTally, tempDir } from '../helpers.js';
import { type Received, startReceiver } from '../support/receiver.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
const file = sandboxForFile(NOW, { accountLimit: 100_000 });
const CI_KEY = KEYS.find((k) => k.name === 'ci-runner')!.secret;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let received: Received[];
beforeAll(async () => {
  receiver = await startReceiver();
  received = receiver.received;
});
afterAll(() => receiver.close());
beforeEach(() => {
  received.length = 0;
});

/** The CI key's runs, in a state folder of their own. */
const state = tempDir();
afterAll(() => state.remove());
const tally = (args: string[], options: { now?: number; input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runTally(args, { env: { ...file.env, TALLY_API_KEY: CI_KEY, TALLY_CONFIG_DIR: state.path, ...options.env }, now: options.now ?? NOW, ...(options.input ? { input: options.input } : {}) });

/** Spend per model of the key over [start, end), as the gateway answers for exactly that window. */
async function keySpend(start: number, end: number, glob?: string): Promise<Decimal> {
  const answer = await fetch(`${file.sandbox.baseUrl}/v1/open/usage/models?start=${start}&end=${end}`, { headers: { authorization: `Bearer ${CI_KEY}` } });
  const doc = (await answer.json()) as { scope: string; models: { model: string; cost: string }[] };
  expect(doc.scope).toBe('key');
  const match = glob ? globMatcher(glob) : () => true;
  return doc.models.filter((r) => match(r.model)).reduce((sum, r) => sum.plus(r.cost), new Decimal(0));
}

describe("a budget says whose spend it counts, and counts that spend", () => {
  it("counts the whole account's, this key's own, or some models', each from its own figure", async () => {
    expect((await tally(['budget', 'set', 'account', '--amount', '50', '--period', 'month', '--tz', 'UTC'])).code).toBe(0);
    const set = await tally(['budget', 'set', 'mine', '--amount', '50', '--period', 'month', '--tz', '+08:00', '--scope', 'key']);
    expect(set.stdout).toBe('Set budget "mine" of profile "default": ¥50.00 a month from day 1, in +08:00, of this key\'s spend.\n');
    expect((await tally(['budget', 'set', 'opus', '--amount', '5', '--period', 'week', '--tz', '+08:00', '--scope', 'key', '--model', 'claude-*', '--model', 'gpt-5*'])).code).toBe(0);
    const doc = JSON.parse((await tally(['budget', '--json'])).stdout) as { budgets: Record<string, unknown>[] };
    const [account, mine, opus] = doc.budgets as { scope: string; spent: string; models?: string[]; start: number; end: number }[];
    expect([account!.scope, mine!.scope, opus!.scope, opus!.models]).toEqual(['account', 'key', 'key', ['claude-*', 'gpt-5*']]);
    // The account's: the usage series since the 1st (every key of the account).
    const hours = JSON.parse((await tally(['usage', '--bucket', 'hour', '--since', String(account!.start), '--json'])).stdout);
    expect(account!.spent).toBe(new Decimal(hours.totals.cost).toFixed());
    // The key's own: its spend per model over the same period, every model, or the models named,
    // the running day included (the gateway's days are +08:00 here, as the budgets').
    const gridDay = (t: number) => Math.floor((t + 8 * 3600) / 86_400) * 86_400 - 8 * 3600;
    const today = gridDay(Math.floor(NOW / 1000));
    expect((mine as { measured_from?: number }).measured_from).toBeUndefined();
    expect(mine!.spent).toBe((await keySpend(mine!.start, today + 86_400)).toFixed());
    // The running day is in it: more than the complete days alone.
    expect(new Decimal(mine!.spent).gt(await keySpend(mine!.start, today))).toBe(true);
    const claude = await keySpend(opus!.start, today + 86_400, 'claude-*');
    const gpt = await keySpend(opus!.start, today + 86_400, 'gpt-5*');
    expect(opus!.spent).toBe(claude.plus(gpt).toFixed());
    // Several keys spend from this account: the key's share is a part of it, never the whole.
    expect(new Decimal(mine!.spent).lt(account!.spent)).toBe(true);
    // Every view says whose: the panel, the list, status, the gate.
    const panel = (await tally(['budget'])).stdout;
    expect(panel).toMatch(/^account +¥[\d,.]+ of ¥50\.00 \(the account\) /m);
    expect(panel).toMatch(/^mine +¥[\d,.]+ of ¥50\.00 \(this key\) /m);
    expect(panel).toMatch(/^opus +¥[\d,.]+ of ¥5\.00 \(this key, claude-\*, gpt-5\*\) /m);
    expect((await tally(["budget", "list"])).stdout).toMatch(/^mine +¥50\.00 +month +1 +\+08:00 +this key +every model$/m);
    expect((await tally(['status'])).stdout).toMatch(/^Budget mine +¥[\d,.]+ of ¥50\.00 \(this key\)/m);
    const gate = JSON.parse((await tally(['check', '--budget', 'mine', '--json'])).stdout);
    expect(gate.checks[0]).toMatchObject({ name: 'budget:mine', actual: mine!.spent, scope: 'key', window: { start: mine!.start, end: mine!.end } });
    expect(gate.checks[0].detail).toContain("budget of this key's spend");
  });

  it("is not measured where its periods begin between the gateway's days (a key's UTC day on a +08:00 grid): never another period's figure", async () => {
    for (const [name, period] of [['utc-day', 'day'], ['utc-week', 'week'], ['utc-month', 'month']] as const) {
      const set = await tally(['budget', 'set', name, '--amount', '5', '--period', period, '--tz', 'UTC', '--scope', 'key']);
      expect(set.code).toBe(0);
      // Said at once, when it is set: stored as asked, and why the gateway cannot measure it.
      expect(set.stderr).toContain(`budget "${name}" is stored, but the gateway cannot measure it: the gateway states spend per model by its own days`);
    }
    const doc = JSON.parse((await tally(['budget', 'utc-day', 'utc-week', 'utc-month', '--json'])).stdout) as { budgets: Record<string, unknown>[] };
    for (const b of doc.budgets) {
      expect(b).toMatchObject({ spent: null, state: 'not measured', not_measured: "the gateway states spend per model by its own days, which begin at 00:00 UTC+08:00 (16:00 UTC), and this budget's period begins or ends between two of them: set it in the gateway's zone (--tz +08:00) to measure it" });
    }
    const gate = await tally(['check', '--budget', 'utc-day']);
    expect(gate.code).toBe(1);
    for (const name of ['utc-day', 'utc-week', 'utc-month']) await tally(['budget', 'rm', name]);
    // An account budget of some models, where the gateway states spend per model as the key's: said at set.
    const some = await tally(['budget', 'set', 'acct-glm', '--amount', '5', '--period', 'month', '--tz', '+08:00', '--scope', 'account', '--model', 'glm-*']);
    expect(some.code).toBe(0);
    expect(some.stderr).toContain('budget "acct-glm" is stored, but the gateway cannot measure it: the gateway states its spend per model as this key\'s');
    await tally(['budget', 'rm', 'acct-glm']);
  });

  it("counts a key's day with the running day across the gateway's midnight: today's spend after it, never yesterday's", async () => {
    expect((await tally(['budget', 'set', 'day8', '--amount', '500', '--period', 'day', '--tz', 'Asia/Shanghai', '--scope', 'key'])).code).toBe(0);
    const gridDay = (t: number) => Math.floor((t + 8 * 3600) / 86_400) * 86_400 - 8 * 3600;
    for (const at of [NOW, gridDay(NOW / 1000) * 1000 + 86_400_000 - 60_000, gridDay(NOW / 1000) * 1000 + 86_400_000 + 60_000]) {
      const doc = JSON.parse((await tally(['budget', 'day8', '--json'], { now: at })).stdout) as { budgets: { spent: string; start: number; end: number }[] };
      const day = gridDay(Math.floor(at / 1000));
      expect(doc.budgets[0]!.start).toBe(day);
      expect(doc.budgets[0]!.spent).toBe((await keySpend(day, day + 86_400)).toFixed());
    }
    await tally(['budget', 'rm', 'day8']);
  });

  it("is not measured where the gateway does not say the spend per model is the key's: never the account's under the key's name", async () => {
    file.sandbox.overrides.set('/v1/open/usage/models', () => ({ body: JSON.stringify({ data: [{ model: 'gpt-5', cost: '1.00000000' }] }) }));
    try {
      const doc = JSON.parse((await tally(['budget', 'mine', '--json'])).stdout);
      expect(doc.budgets[0]).toMatchObject({ name: 'mine', scope: 'key', spent: null, percent: null, projected: null, state: 'not measured', not_measured: "the gateway does not say whose its spend per model is, so this key's spend cannot be told" });
      const gate = await tally(['check', '--budget', 'mine']);
      expect(gate.code).toBe(1);
      expect(gate.stderr).toContain('budget "mine" (this key\'s spend) is not measured');
      const open = await tally(['check', '--budget', 'mine', '--budget', 'account', '--fail-open', '--json']);
      expect(open.code === 0 || open.code === 5).toBe(true);
      expect(JSON.parse(open.stdout).checks.find((c: { name: string }) => c.name === 'budget:mine')).toMatchObject({ level: 'warn', actual: null });
    } finally {
      file.sandbox.overrides.delete('/v1/open/usage/models');
    }
  });
});

describe('alerts close what they opened', () => {
  it('a new period resolves the alert of the last one (saying why), and a period that fails again opens anew', async () => {
    await tally(['notify', 'add', 'ops', '--kind', 'webhook'], { input: `${receiver.url}/ops\n` });
    await tally(['budget', 'set', 'tiny', '--amount', '0.01', '--period', 'month', '--tz', 'UTC']);
    expect((await tally(['check', '--budget', 'tiny', '--notify', 'ops'])).code).toBe(5);
    expect(received.map((r) => JSON.parse(r.body).level)).toEqual(['fail']);
    received.length = 0;
    // December: the account has spent nothing yet this month (the gateway's history ends in November).
    const december = Date.UTC(2026, 11, 2, 9, 30);
    expect((await tally(['check', '--budget', 'tiny', '--notify', 'ops'], { now: december })).code).toBe(0);
    const closed = received.map((r) => JSON.parse(r.body));
    expect(closed.map((b) => [b.check, b.level])).toEqual([['budget:tiny', 'resolved']]);
    expect(closed[0].message).toMatch(/resolved budget:tiny: a new period began \(the fail of the last one no longer holds\)/);
    expect(closed[0].window).toMatchObject({ start_iso: '2026-12-01T00:00:00+00:00' });
    received.length = 0;
    expect((await tally(['check', '--budget', 'tiny', '--notify', 'ops'], { now: december })).code).toBe(0);
    expect(received).toHaveLength(0);
  });

  it("findings that left the window are resolved, and each alert says whose spend and which window", async () => {
    const found = await tally(['check', '--warn-anomalies', '--since', '30d', '--notify', 'ops', '--json']);
    const findings = (JSON.parse(found.stdout).checks as { name: string; scope: string | null; window: { start_iso: string } }[]).filter((c) => c.name.startsWith('warn-anomalies:'));
    expect(findings.length).toBeGreaterThan(0);
    const sent = received.map((r) => JSON.parse(r.body));
    expect(sent.map((b) => b.check).sort()).toEqual(findings.map((f) => f.name).sort());
    for (const body of sent) {
      expect(['account', 'key']).toContain(body.scope);
      expect(body.window.start_iso).toMatch(/^2026-10-2\dT/);
      expect(body.message).toMatch(/(the whole account's spend \(every key\)|this key's spend), found in the window/);
    }
    received.length = 0;
    // Two months on, the same check finds other things (or nothing): every finding of before is resolved, once.
    const later = Date.UTC(2027, 0, 25, 9, 30);
    await tally(['check', '--warn-anomalies', '--since', '30d', '--notify', 'ops'], { now: later });
    const resolved = received.map((r) => JSON.parse(r.body)).filter((b) => b.level === 'resolved');
    expect(resolved.map((b) => b.check).sort()).toEqual(findings.map((f) => f.name).sort());
    for (const body of resolved) expect(body.message).toMatch(/no longer found in the window checked$/);
    received.length = 0;
    await tally(['check', '--warn-anomalies', '--since', '30d', '--notify', 'ops'], { now: later });
    expect(received.filter((r) => JSON.parse(r.body).level === 'resolved')).toHaveLength(0);
  });
});
