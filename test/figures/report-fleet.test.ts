// Every profile's report (figures/report-fleet.ts): the period's spend and the one before with
// each account counted once (two keys of one account share its spend; a profile whose account is
// unknown counts as its own), and a fleet where no profile could be reported on failing with the
// first failed profile's exit code, never an empty report.
import { describe, expect, it } from 'vitest';
import { fleetTotals, loadFleetReports } from '../../src/figures/report-fleet.js';
import { Decimal } from '../../src/domain/money.js';
import type { Report } from '../../src/figures/report.js';
import { GW, KEY, freshState, mockGateway, runCommand, testContext } from '../helpers.js';

const spent = (current: string, previous: string) => ({ spend: { current: new Decimal(current), previous: new Decimal(previous) } }) as unknown as Report;

describe("a fleet's report totals", () => {
  it('count each account once, each key of it sharing its spend, and an unknown account per profile', () => {
    const totals = fleetTotals([
      { report: spent('120.50', '100.25'), account: 'acct-main' },
      // The same account under a second key: its spend is the account's, counted already.
      { report: spent('120.50', '100.25'), account: 'acct-main' },
      { report: spent('7.125', '0'), account: 'acct-lab' },
      { report: spent('1.1', '2.2'), account: undefined },
      { report: spent('1.1', '2.2'), account: undefined },
    ]);
    expect([totals.accounts, totals.current.toFixed(), totals.previous.toFixed()]).toEqual([4, '129.825', '104.65']);
  });

  it('fail with the first failed exit code when no profile could be reported on', async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    for (const profile of ['main', 'lab']) expect((await runCommand(['--profile', profile, 'login', '--base-url', GW, '--with-token', '--no-verify'], { env, stdin: `${KEY}${profile}` })).code).toBe(0);
    const gw = mockGateway(GW, { loose: true });
    gw.pool.intercept({ path: () => true }).reply(401, '{"error":{"message":"invalid key"}}', { headers: { 'content-type': 'application/json' } }).persist();
    const { ctx } = testContext({ transport: gw.transport, env, allProfiles: true });
    await expect(loadFleetReports(ctx, { period: 'week' })).rejects.toMatchObject({ exitCode: 3, message: expect.stringMatching(/^no profile could be reported on: lab \(.+\); main \(.+\)$/) });
  });
});
