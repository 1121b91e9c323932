// Alerts that reach a person, end to end: the built binary against the sandbox, and a local HTTP
// receiver that records what it got (no mocks of tally's own code).
import { readFileSync, statSync } from 'node:fs';
import { Decimal } from '../../src/domain/money.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, clockStartingAt, startSandbox } from '../../src/sandbox/server.js';
import { runTally, tempDir } from '../helpers.js';
import { type Received, startReceiver } from '../support/receiver.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30);
let sandbox: Sandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverUrl: string;
let received: Received[];
let answer = 200;
const state = tempDir();
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clockStartingAt(NOW), dayOffsetMinutes: 480, accountLimit: 5000 });
  receiver = await startReceiver((path) =>
    path.startsWith('/elsewhere') ? { status: 302, headers: { location: 'http://127.0.0.2:9/stolen' }, record: false }
    : path.startsWith('/see-other') ? { status: 303, headers: { location: '/see-other/done' } }
    : { status: answer },
  );
  ({ url: receiverUrl, received } = receiver);
  env = { TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TZ: 'UTC' };
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
  state.remove();
});
beforeEach(() => {
  received.length = 0;
  answer = 200;
});

const tally = (args: string[], input?: string) => runTally(args, { env, now: NOW, input });

describe('tally notify', () => {
  it('reads the destination from stdin, stores it 0600, shows it masked, and sends a test message', async () => {
    const secretPath = '/hook/T000-secret-token-4f2a';
    const added = await tally(['notify', 'add', 'team', '--kind', 'webhook'], `${receiverUrl}${secretPath}\n`);
    expect(added.code).toBe(0);
    expect(added.stdout).not.toContain('secret-token');
    expect(statSync(`${state.path}/config.json`).mode & 0o777).toBe(0o600);
    const listed = await tally(['notify', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual({ destinations: [{ name: 'team', kind: 'webhook', url: `${receiverUrl}/…4f2a` }] });
    const tested = await tally(['notify', 'test', 'team', '--debug']);
    expect(tested.code).toBe(0);
    expect(tested.stdout + tested.stderr).not.toContain('secret-token');
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(secretPath);
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(received[0]!.body)).toMatchObject({ source: 'tally', profile: 'default', check: 'test', level: 'test' });
    expect((await tally(['notify', 'add', 'plain', '--kind', 'slack'], 'http://hooks.example.com/x\n')).stderr).toContain('plain http://');
    expect((await tally(['notify', 'add', 'bad', '--kind', 'slack'], 'ftp://x/y\n')).code).toBe(2);
    expect((await tally(['notify', 'test', 'nope'])).code).toBe(2);
  });

  it('sends once when a condition starts failing, again when it gets worse, one resolved, nothing in between', async () => {
    await tally(['budget', 'set', 'monthly', '--amount', '100', '--period', 'month', '--tz', 'Asia/Shanghai']);
    const run = (args: string[]) => tally(['check', ...args, '--notify', 'team']);
    const levels = async () => received.splice(0).map((r) => JSON.parse(r.body).level);
    expect((await run(['--warn-budget', 'monthly:1%'])).code).toBe(0);
    expect(await levels()).toEqual(['warn']);
    expect((await run(['--warn-budget', 'monthly:1%'])).code).toBe(0);
    expect(await levels()).toEqual([]);
    expect((await run(['--warn-budget', 'monthly:1%', '--budget', 'monthly:2%'])).code).toBe(5);
    const worse = received.map((r) => JSON.parse(r.body));
    expect(await levels()).toEqual(['fail']);
    expect(worse[0]).toMatchObject({ source: 'tally', profile: 'default', check: 'budget:monthly', level: 'fail', unit: 'CNY', limit: '2' });
    expect(Object.keys(worse[0])).toEqual(['source', 'profile', 'check', 'level', 'actual', 'limit', 'unit', 'message', 'at', 'scope', 'window']);
    // Whose spend and which period: the body says so, and so does the message.
    expect(worse[0]).toMatchObject({ scope: 'account', window: { start_iso: '2026-11-01T00:00:00+08:00', end_iso: '2026-12-01T00:00:00+08:00' } });
    expect(worse[0].message).toContain("the whole account's spend (every key)");
    expect((await run(['--warn-budget', 'monthly:1%', '--budget', 'monthly:2%'])).code).toBe(5);
    expect(await levels()).toEqual([]);
    expect((await run(['--budget', 'monthly:900%'])).code).toBe(0);
    expect(await levels()).toEqual(['resolved']);
    expect((await run(['--budget', 'monthly:900%'])).code).toBe(0);
    expect(await levels()).toEqual([]);
  });

  it('sends each threshold of --budget NAME:50%,80%,100% once a period, with its share in the message; the highest fails, the others warn', async () => {
    await tally(['budget', 'set', 'thresholds', '--amount', '100', '--period', 'month', '--tz', 'Asia/Shanghai']);
    const probe = JSON.parse((await tally(['check', '--warn-budget', 'thresholds:1000%', '--json'])).stdout) as { checks: { actual: string }[] };
    const spent = new Decimal(probe.checks[0]!.actual);
    // Amounts that put the spend between the first and the second threshold: 60% of the amount.
    const amount = spent.div('0.6').toDecimalPlaces(2).toFixed();
    await tally(['budget', 'set', 'thresholds', '--amount', amount, '--period', 'month', '--tz', 'Asia/Shanghai']);
    const run = () => tally(['check', '--budget', 'thresholds:50%,80%,100%', '--notify', 'team', '--json']);
    const first = await run();
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout) as { checks: { name: string; level: string }[] };
    expect(doc.checks.map((c) => [c.name, c.level])).toEqual([['budget:thresholds@50%', 'warn'], ['budget:thresholds@80%', 'pass'], ['budget:thresholds@100%', 'pass']]);
    const sent = received.splice(0).map((r) => JSON.parse(r.body) as { check: string; level: string; message: string });
    expect(sent.map((m) => [m.check, m.level])).toEqual([['budget:thresholds@50%', 'warn']]);
    expect(sent[0]!.message).toContain('50% of the');
    expect((await run()).code).toBe(0);
    expect(received).toEqual([]);
  });

  it('never changes the exit code for a failed delivery, and tries again on the next run', async () => {
    answer = 500;
    const first = await tally(['check', '--min-balance', '999999999', '--notify', 'team']);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('warning: the fail alert for min-balance was not delivered: webhook "team" answered HTTP 500; it is tried again on the next run');
    answer = 200;
    received.length = 0;
    expect((await tally(['check', '--min-balance', '999999999', '--notify', 'team'])).code).toBe(5);
    expect(received.map((r) => JSON.parse(r.body).level)).toEqual(['fail']);
  });

  it('sends once when two runs go at once', async () => {
    const results = await Promise.all([1, 2, 3].map(() => tally(['check', '--min-balance', '888888888', '--warn-balance', '999999999', '--notify', 'team'])));
    expect(results.map((r) => r.code)).toEqual([5, 5, 5]);
    // min-balance was already notified above; warn-balance is new: exactly one message for it.
    expect(received.map((r) => JSON.parse(r.body).check).sort()).toEqual(['warn-balance']);
  });

  it('speaks Slack and ntfy, escapes what Slack reads as markup, and refuses a redirect to another origin', async () => {
    await tally(['notify', 'add', 'chat', '--kind', 'slack'], `${receiverUrl}/slack/XYZ\n`);
    await tally(['notify', 'add', 'phone', '--kind', 'ntfy'], `${receiverUrl}/ntfy/topic\n`);
    await tally(['notify', 'add', 'moved', '--kind', 'webhook'], `${receiverUrl}/elsewhere\n`);
    const result = await tally(['check', '--max-daily-used', '0.0001', '--notify', 'chat', '--notify', 'phone', '--notify', 'moved']);
    expect(result.code).toBe(5);
    const slack = received.find((r) => r.path === '/slack/XYZ')!;
    expect(Object.keys(JSON.parse(slack.body))).toEqual(['text']);
    // The limit shows as <¥0.01: Slack reads < as markup, so it arrives escaped.
    expect(JSON.parse(slack.body).text).toMatch(/^tally \(default\): FAIL max-daily-used: actual ¥[\d.,]+, limit ¥0\.0001$/);
    const ntfy = received.find((r) => r.path === '/ntfy/topic')!;
    expect(ntfy.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect([ntfy.headers.title, ntfy.headers.priority, ntfy.headers.tags]).toEqual(['tally fail: max-daily-used (default)', 'high', 'rotating_light']);
    expect(result.stderr).toContain('webhook "moved" redirected to another origin; not followed');
  });

  it('rebuilds a corrupt state file with a warning and sends nothing twice because of it', async () => {
    const { readdirSync, writeFileSync } = await import('node:fs');
    const file = readdirSync(`${state.path}/state`).find((f) => f.startsWith('alerts-default-') && f.endsWith('.json'))!;
    writeFileSync(`${state.path}/state/${file}`, '{garbage');
    const result = await tally(['check', '--min-balance', '999999999', '--notify', 'team']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('was not one tally wrote; it is rebuilt');
    expect(received).toHaveLength(0);
    expect(JSON.parse(readFileSync(`${state.path}/state/${file}`, 'utf8')).version).toBe(1);
  });
});

describe('alerts, hardened', () => {
  it('checks the alert state is writable before sending anything, and sends nothing when it is not', async () => {
    const { alertStatePath } = await import('../../src/settings/alert-state.js');
    const { mkdirSync, rmSync } = await import('node:fs');
    await tally(['notify', 'add', 'locked', '--kind', 'webhook'], `${receiverUrl}/locked\n`);
    const path = alertStatePath(state.path, 'default', new URL(sandbox.baseUrl), sandbox.demoKey);
    rmSync(path, { force: true });
    mkdirSync(path, { recursive: true });
    try {
      for (let i = 0; i < 2; i++) {
        const result = await tally(['check', '--max-daily-used', '0.0001', '--notify', 'locked']);
        expect(result.code).toBe(5);
        expect(result.stderr).toContain('alerts were not sent: cannot write');
      }
      expect(received.filter((r) => r.path === '/locked')).toHaveLength(0);
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  });

  it('takes a 303 from a receiver as delivered: the alert is posted once', async () => {
    await tally(['notify', 'add', 'seeother', '--kind', 'webhook'], `${receiverUrl}/see-other\n`);
    const result = await tally(['notify', 'test', 'seeother']);
    expect(result.code).toBe(0);
    expect(received.filter((r) => r.path.startsWith('/see-other'))).toHaveLength(1);
  });
});

describe('tally report --send', () => {
  it('posts the digest in the form each destination reads, once per period however often cron runs it, and again with --force', async () => {
    for (const kind of ['webhook', 'slack', 'ntfy']) expect((await tally(['notify', 'add', `digest-${kind}`, '--kind', kind], `${receiverUrl}/digest/${kind}\n`)).code).toBe(0);
    const doc = JSON.parse((await tally(['report', '--json'])).stdout);
    for (const kind of ['webhook', 'slack', 'ntfy']) {
      const sent = await tally(['report', '--send', `digest-${kind}`]);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toBe('');
      expect(sent.stderr).toBe(`sent the report for the ${doc.period.label} to ${kind} "digest-${kind}"\n`);
    }
    const [webhook, slack, ntfy] = received;
    expect(JSON.parse(webhook!.body)).toEqual({ source: 'tally', kind: 'report', ...doc });
    const blocks = JSON.parse(slack!.body).blocks as { type: string; text: { type: string; text: string } }[];
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const block of blocks) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    expect(blocks[0]!.text).toEqual({ type: 'mrkdwn', text: expect.stringMatching(/^\*tally report: week \d{4}-\d{2}-\d{2} \u2013 \d{4}-\d{2}-\d{2}\* \(default\)\n/) });
    expect(ntfy!.headers.title).toBe(`tally report: ${doc.period.label.replace("\u2013", "-")} (default)`);
    expect(ntfy!.body).toMatch(/^Spend ¥[\d,.]+ \(previous ¥[\d,.]+, [+-]?¥[\d,.]+, [^)]+\)\nBalance now ¥[\d,.]+, runway /);
    expect(ntfy!.body).not.toMatch(/https?:/);
    // Cron runs it again within the period: nothing is sent, and it says so.
    received.length = 0;
    const again = await tally(['report', '--send', 'digest-webhook']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`the report for the ${doc.period.label} was sent to "digest-webhook" already (--force sends it again)\n`);
    expect(received).toEqual([]);
    const forced = await tally(['report', '--send', 'digest-webhook', '--force']);
    expect(forced.code).toBe(0);
    expect(received).toHaveLength(1);
    // The next period is sent once more.
    received.length = 0;
    const nextWeek = await runTally(['report', '--send', 'digest-webhook'], { env, now: NOW + 7 * 86_400_000 });
    expect(nextWeek.code).toBe(0);
    expect(received).toHaveLength(1);
  });

  it('says which destination does not exist before asking the gateway anything', async () => {
    const result = await tally(['report', '--send', 'nobody']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^tally: there is no notify destination "nobody"\n/);
  });
});

describe('check --anomalies --notify', () => {
  it('alerts once per finding: a second run sends nothing new', async () => {
    expect((await tally(['notify', 'add', 'findings', '--kind', 'webhook'], `${receiverUrl}/findings\n`)).code).toBe(0);
    const first = await tally(['check', '--warn-anomalies', '--notify', 'findings', '--json']);
    expect(first.code).toBe(0);
    const findings = JSON.parse(first.stdout).checks.filter((c: { level: string }) => c.level === 'warn');
    expect(findings.length).toBeGreaterThan(0);
    const alerts = received.filter((r) => r.path === '/findings').map((r) => JSON.parse(r.body).check);
    expect(alerts.sort()).toEqual(findings.map((c: { name: string }) => c.name).sort());
    received.length = 0;
    expect((await tally(['check', '--warn-anomalies', '--notify', 'findings'])).code).toBe(0);
    expect(received).toEqual([]);
  });
});
