// The ledger of a run (figures/ledgers.ts): one profile's (no name on it), or every profile's one
// after another, each under its name, a device token's left out with a note (it reads no usage),
// and with a file being appended to, only periods that have ended.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLedgers } from '../../src/figures/ledgers.js';
import { GW, KEY, freshState, mockGateway, runCommand, testContext } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 27, 9, 0);
const json = { headers: { 'content-type': 'application/json' } };

/** Every day: one record of qwen-max at ¥1.25 (the key's), and the account's series. */
function gateway() {
  const gw = mockGateway(GW, { loose: true });
  gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage/models?') }).reply(200, JSON.stringify({ scope: 'key', data: [{ model_id: 'qwen-max', requests: 2, cost_cny: '1.25' }] }), json).persist();
  gw.pool.intercept({ path: (p) => p.startsWith('/v1/open/usage?') }).reply(200, JSON.stringify({ scope: 'account', buckets: [], totals: {} }), json).persist();
  return gw;
}

describe("a run's ledger", () => {
  it("is one profile's, unnamed, its rows and their spend", async () => {
    const gw = gateway();
    const { ctx } = testContext({ transport: gw.transport, env: { TALLY_BASE_URL: GW, TALLY_API_KEY: KEY }, now: () => NOW });
    const { exported, partial } = await loadLedgers(ctx, { since: '2026-11-25', until: '2026-11-27', utcOffset: '+00:00' }, undefined);
    expect(exported.map((e) => [e.profile, e.ledger.rows.map((r) => `${r.date} ${r.model} ${r.amount}`), e.ledger.spend])).toEqual([[undefined, ['2026-11-25 qwen-max 1.25', '2026-11-26 qwen-max 1.25'], '2.5']]);
    expect(partial).toEqual([]);
  });

  it("is every profile's in turn, each named; a device token's is left out and said", async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    for (const profile of ['main', 'lab']) expect((await runCommand(['--profile', profile, 'login', '--base-url', GW, '--with-token', '--no-verify'], { env, stdin: `${KEY}${profile}` })).code).toBe(0);
    // A third profile signed in with a device token (which reads the balance only).
    const config = JSON.parse(readFileSync(join(state, 'config.json'), 'utf8'));
    config.profiles.desk = { base_url: GW, device_token: { access_token: 'dt-0123456789abcdef', expires_at: '2027-01-01T00:00:00.000Z' } };
    writeFileSync(join(state, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const gw = gateway();
    const { ctx, io } = testContext({ transport: gw.transport, env, now: () => NOW, allProfiles: true });
    const { exported } = await loadLedgers(ctx, { since: '2026-11-26', until: '2026-11-27', utcOffset: '+00:00' }, undefined);
    expect(exported.map((e) => [e.profile, e.ledger.spend])).toEqual([['lab', '1.25'], ['main', '1.25']]);
    expect(io.stderr).toContain('profile "desk" is signed in with a device token, which reads no usage: it is left out of the ledger');
  });
});
