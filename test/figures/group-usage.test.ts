// tally group and usage --by group against two gateways (the built binary): profiles of one key
// counted once, another account's profile in its group, an unattributed profile kept, and the
// rows adding up to the total, each row the sum of what usage --json says for its profiles.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';
import { runTally, tempDir } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 20, 9);
let main: Sandbox;
let other: Sandbox;
const state = tempDir();
const env = () => ({ PATH: process.env.PATH, HOME: '/nonexistent-home', TALLY_CONFIG_DIR: state.path });
const tally = (args: string[], input?: string) => runTally(args, { env: env(), now: NOW, ...(input ? { input } : {}) });

beforeAll(async () => {
  main = await startSandbox({ now: () => NOW });
  other = await startSandbox({ now: () => NOW, seed: 7 });
  for (const [profile, gateway] of [['prod', main], ['prod-copy', main], ['research', other]] as const) {
    const login = await tally(['--profile', profile, 'login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], `${gateway.demoKey}\n`);
    expect(login.code, login.stderr).toBe(0);
  }
});
afterAll(async () => {
  await main.close();
  await other.close();
  state.remove();
});

describe('groups of profiles', () => {
  it('add their spend up per group, each key once, the unattributed kept, to the total', async () => {
    expect((await tally(['group', 'set', 'platform', '--profiles', 'prod,research'])).code).toBe(0);
    const taken = await tally(['group', 'set', 'other', '--profiles', 'prod']);
    expect([taken.code, taken.stderr]).toEqual([2, expect.stringContaining('profile "prod" is in group "platform"')]);
    const list = JSON.parse((await tally(['group', 'list', '--json'])).stdout);
    expect(list).toEqual({ groups: [{ name: 'platform', profiles: ['prod', 'research'] }], unattributed: ['prod-copy'] });
    const byGroup = await tally(['usage', '--by', 'group', '--since', '7d', '--json']);
    expect(byGroup.code, byGroup.stderr).toBe(0);
    const doc = JSON.parse(byGroup.stdout) as { groups: { group: string; profiles: string[]; spend: string }[]; total: string };
    expect(doc.groups.map((g) => [g.group, g.profiles])).toEqual([['platform', ['prod', 'research']], ['unattributed', ['prod-copy']]]);
    const spendOf = async (profile: string) => {
      const usage = JSON.parse((await tally(['--profile', profile, 'usage', '--since', '7d', '--json'])).stdout) as { totals: Record<string, string> };
      const field = Object.keys(usage.totals).find((k) => /cost|spend|amount/.test(k))!;
      return new Decimal(usage.totals[field]!);
    };
    const [prod, research] = await Promise.all([spendOf('prod'), spendOf('research')]);
    // prod-copy reads prod's key: counted once, in prod's group; its own row is empty.
    expect(doc.groups[0]!.spend).toBe(prod.plus(research).toFixed());
    expect(doc.groups[1]!.spend).toBe('0');
    expect(doc.total).toBe(prod.plus(research).toFixed());
    const text = await tally(['usage', '--by', 'group', '--since', '7d']);
    expect(text.stdout).toMatch(/^unattributed +prod-copy +¥0\.00$/m);
    expect(text.stdout).toContain('profiles in no group are "unattributed", so the groups add up to the total');
    // export --by group: a group column after the profile, in CSV and NDJSON alike.
    const csv = await tally(['export', '--all-profiles', '--by', 'group', '--since', '3d', '--csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [head, ...lines] = csv.stdout.trim().split(/\r?\n/);
    expect(head).toBe('date,zone,profile,group,gateway,scope,model,calls,input_tokens,output_tokens,amount,currency,complete');
    const groupOfLine = (line: string) => line.split(',').slice(2, 4).join('=');
    expect(new Set(lines.map(groupOfLine))).toEqual(new Set(['prod=platform', 'prod-copy=unattributed', 'research=platform']));
    const ndjson = (await tally(['export', '--profile', 'prod-copy', '--by', 'group', '--since', '3d', '--ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(ndjson[0]!).slice(0, 5)).toEqual(['date', 'zone', 'profile', 'group', 'gateway']);
    expect(ndjson.every((r) => r.group === 'unattributed')).toBe(true);
    // --append with --by group: a ledger with the group column, each period once; a ledger keeps one set of columns.
    const grouped = join(state.path, 'grouped.csv');
    const added = await tally(['export', '--all-profiles', '--by', 'group', '--since', '3d', '--csv', '--append', grouped]);
    expect(added.code, added.stderr).toBe(0);
    const written = readFileSync(grouped, 'utf8');
    expect(written.split('\r\n')[0]).toBe(head);
    expect(new Set(written.trim().split(/\r?\n/).slice(1).filter((l) => l.endsWith(',true')).map(groupOfLine))).toEqual(new Set(['prod=platform', 'prod-copy=unattributed', 'research=platform']));
    expect((await tally(['export', '--all-profiles', '--by', 'group', '--since', '3d', '--csv', '--append', grouped])).stderr).toContain('added 0 rows');
    expect(readFileSync(grouped, 'utf8')).toBe(written);
    const plain = await tally(['export', '--all-profiles', '--since', '3d', '--csv', '--append', grouped]);
    expect([plain.code, plain.stderr]).toEqual([2, expect.stringContaining('has a group column (it was written with --by group): add --by group to add to it; nothing was written')]);
    const plainNd = join(state.path, 'plain.ndjson');
    expect((await tally(['export', '--profile', 'prod', '--since', '3d', '--ndjson', '--append', plainNd])).code).toBe(0);
    const mixed = await tally(['export', '--profile', 'prod', '--by', 'group', '--since', '3d', '--ndjson', '--append', plainNd]);
    expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringContaining('has no group column (it was written without --by group)')]);
    const groupedNd = join(state.path, 'grouped.ndjson');
    expect((await tally(['export', '--profile', 'prod-copy', '--by', 'group', '--since', '3d', '--ndjson', '--append', groupedNd])).code).toBe(0);
    const rowsNd = readFileSync(groupedNd, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(rowsNd[0]!).slice(0, 5)).toEqual(['date', 'zone', 'profile', 'group', 'gateway']);
    expect(rowsNd.every((r) => r.group === 'unattributed')).toBe(true);
    // report --all-profiles --by group: the period's spend per group, each key once, adding up to the fleet's total.
    const report = JSON.parse((await tally(['report', '--all-profiles', '--by', 'group', '--json'])).stdout) as { totals: { current: string }; groups: { group: string; profiles: string[]; spend: string }[] };
    expect(report.groups.map((g) => [g.group, g.profiles])).toEqual([['platform', ['prod', 'research']], ['unattributed', ['prod-copy']]]);
    expect(report.groups[1]!.spend).toBe('0');
    expect(report.groups.reduce((sum, g) => sum.plus(g.spend), new Decimal(0)).toFixed()).toBe(new Decimal(report.totals.current).toFixed());
    expect((await tally(['report', '--by', 'group'])).code).toBe(2);
    // The HTML page has the same rows, exact in their attributes.
    const page = join(state.path, 'report.html');
    expect((await tally(['report', '--all-profiles', '--by', 'group', '--html', page])).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect([...html.matchAll(/data-group="([^"]+)" data-value="([^"]+)"/g)].map((m) => [m[1], m[2]])).toEqual(report.groups.map((g) => [g.group, new Decimal(g.spend).toFixed()]));
    expect(html).toContain('<h2>By group</h2>');
    // metrics labels each profile's series with its group, the unattributed too.
    const metrics = await tally(['metrics', '--all-profiles']);
    expect(metrics.stdout).toMatch(/^tally_up\{profile="prod",group="platform"\} 1$/m);
    expect(metrics.stdout).toMatch(/^tally_up\{profile="prod-copy",group="unattributed"\} 1$/m);
    expect((await tally(['group', 'rm', 'platform'])).code).toBe(0);
    expect((await tally(['metrics', '--all-profiles'])).stdout).toMatch(/^tally_up\{profile="prod"\} 1$/m);
  });
});

describe('a budget of a group', () => {
  it("counts the group's profiles' spend over its period, each account once, and is not measured where a profile cannot be read", async () => {
    expect((await tally(['group', 'set', 'team', '--profiles', 'prod,prod-copy,research'])).code).toBe(0);
    const set = await tally(['--profile', 'prod-copy', 'budget', 'set', 'shared', '--group', 'team', '--amount', '100', '--period', 'day', '--tz', 'UTC']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('¥100.00 a day, in UTC, of the spend of group "team" (each of its accounts once)');
    for (const profile of ['prod', 'research']) expect((await tally(['--profile', profile, 'budget', 'set', 'own', '--amount', '100', '--period', 'day', '--tz', 'UTC'])).code).toBe(0);
    const spentOf = async (profile: string, name: string) => {
      const result = await tally(['--profile', profile, 'budget', name, '--json']);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).budgets[0] as { spent: string; group?: string; state: string };
    };
    const [shared, prod, research] = await Promise.all([spentOf('prod-copy', 'shared'), spentOf('prod', 'own'), spentOf('research', 'own')]);
    expect(new Decimal(prod.spent).gt(0) && new Decimal(research.spent).gt(0)).toBe(true);
    // prod-copy reads prod's key: counted once.
    expect(shared).toMatchObject({ group: 'team', spent: new Decimal(prod.spent).plus(research.spent).toFixed() });
    // The environment's gateway would stand for every profile of the group: not measured, and why.
    const fromEnv = await runTally(['--profile', 'prod-copy', 'budget', 'shared', '--json'], { env: { ...env(), TALLY_BASE_URL: main.baseUrl, TALLY_API_KEY: main.demoKey }, now: NOW });
    expect(JSON.parse(fromEnv.stdout).budgets[0]).toMatchObject({ state: 'not measured', not_measured: 'group "team" is read profile by profile, each with its own base URL and credential: unset TALLY_BASE_URL and TALLY_API_KEY (and leave out --base-url)' });
    // --group with a key's scope is refused; a group that is gone, and a profile that cannot be read, leave it not measured.
    const refused = await tally(['budget', 'set', 'x', '--group', 'team', '--scope', 'key', '--amount', '1', '--period', 'day']);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--scope key and --model go with a budget of this profile')]);
    await tally(['--profile', 'broken', 'login', '--base-url', 'http://127.0.0.1:9', '--with-token', '--no-verify'], 'sk-broken\n');
    expect((await tally(['group', 'set', 'team', '--profiles', 'prod,broken'])).code).toBe(0);
    const unread = await spentOf('prod-copy', 'shared');
    expect(unread).toMatchObject({ spent: null, state: 'not measured', not_measured: expect.stringMatching(/^profile "broken" of group "team" could not be read/) });
    const gate = await tally(['--profile', 'prod-copy', 'check', '--budget', 'shared']);
    expect(gate.code).toBe(1);
    expect((await tally(['group', 'rm', 'team'])).code).toBe(0);
    expect((await spentOf('prod-copy', 'shared'))).toMatchObject({ state: 'not measured', not_measured: expect.stringContaining('there is no group "team"') });
  });
});

