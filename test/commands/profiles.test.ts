// Choosing what to look at: the active profile (tally auth switch), the first login making its
// profile active, auth status listing every profile with the active one marked.
import { describe, expect, it } from 'vitest';
import { GW, KEY, freshState, mockGateway, runCommand } from '../helpers.js';

const json = { headers: { 'content-type': 'application/json' } };
const balance = (value: string) => `{"currency": "CNY", "balance": "${value}", "lifetime_spend": "1.00000000", "plan": {"has_active_plan": false}, "api_key": null}`;

describe('the active profile', () => {
  it('is the first profile logged in to, and auth switch changes it; --profile and TALLY_PROFILE still win', async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    const first = await runCommand(['--profile', 'main', 'login', '--base-url', GW, '--with-token', '--no-verify'], { env, stdin: KEY });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('It is the active profile now');
    await runCommand(['--profile', 'other', 'login', '--base-url', 'https://other.test', '--with-token', '--no-verify'], { env, stdin: `${KEY}x` });
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance('10.00000000'), json).persist();
    gw.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json).persist();
    const other = mockGateway('https://other.test');
    other.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance('20.00000000'), json).persist();
    other.pool.intercept({ path: '/api/usage/token/' }).reply(404, '{}', json).persist();
    // One transport for both origins: the main gateway's.
    const transport = async (request: Parameters<typeof gw.transport>[0]) => (request.url.origin === GW ? gw.transport(request) : other.transport(request));
    expect(JSON.parse((await runCommand(['balance', '--json'], { env, transport })).stdout).balance).toBe('10.00000000');
    const switched = await runCommand(['auth', 'switch', 'other'], { env });
    expect(switched.code).toBe(0);
    expect(switched.stdout).toBe('Switched to profile "other" (https://other.test): used when neither --profile nor TALLY_PROFILE names one.\n');
    expect(JSON.parse((await runCommand(['balance', '--json'], { env, transport })).stdout).balance).toBe('20.00000000');
    expect(JSON.parse((await runCommand(['--profile', 'main', 'balance', '--json'], { env, transport })).stdout).balance).toBe('10.00000000');
    expect(JSON.parse((await runCommand(['balance', '--json'], { env: { ...env, TALLY_PROFILE: 'main' }, transport })).stdout).balance).toBe('10.00000000');
    const status = JSON.parse((await runCommand(['auth', 'status', '--offline', '--json'], { env })).stdout);
    expect(status.profiles.map((p: { profile: string; active: boolean }) => [p.profile, p.active])).toEqual([['other', true], ['main', false]]);
    // Says why it is the one in use, once (never "active, from active profile (tally auth switch)").
    expect((await runCommand(['auth', 'status', '--offline'], { env })).stdout).toMatch(/^Profile other \(active: tally auth switch chose it\)$/m);
    expect((await runCommand(['auth', 'switch', 'nope'], { env })).code).toBe(2);
  });

  it('says --no-verify where a login cannot reach the gateway', async () => {
    const state = freshState();
    const result = await runCommand(['login', '--base-url', 'http://127.0.0.1:9', '--with-token'], { env: { TALLY_CONFIG_DIR: state }, stdin: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was stored');
    expect(result.stderr).toContain('--no-verify');
  });
});

describe('doctor on a profile with budgets and alert destinations', () => {
  it('names them, never [object Object] and never a destination URL', async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    await runCommand(['login', '--base-url', GW, '--with-token', '--no-verify'], { env, stdin: KEY });
    await runCommand(['budget', 'set', 'monthly', '--amount', '5', '--period', 'month'], { env });
    await runCommand(['notify', 'add', 'team', '--kind', 'webhook'], { env, stdin: 'https://hooks.test/secret-path-1234\n' });
    const gw = mockGateway();
    gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, balance('10.00000000'), json).persist();
    const doctor = await runCommand(['doctor', '--json'], { env, transport: gw.transport });
    const settings = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'settings');
    expect(settings.detail).toBe('budgets=monthly, notify=team (profile)');
    expect(doctor.stdout).not.toContain('secret-path');
  });
});

describe('notify add on a terminal', () => {
  it('asks for the destination without echo, as login asks for a key', async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    await runCommand(['login', '--base-url', GW, '--with-token', '--no-verify'], { env, stdin: KEY });
    const added = await runCommand(['notify', 'add', 'team', '--kind', 'webhook'], { env, tty: true, answers: ['https://hooks.test/hidden-secret-9876'] });
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('Destination URL (input hidden): ');
    expect(added.stdout + added.stderr).not.toContain('hidden-secret');
    const listed = JSON.parse((await runCommand(['notify', 'list', '--json'], { env })).stdout);
    expect(listed.destinations[0].url).toBe('https://hooks.test/…9876');
  });
});
