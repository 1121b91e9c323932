// CI that prices the run: a mark at the start, a gate on what the run spent at the end, and the
// reports a CI system reads (JUnit, Markdown).
import { readFileSync, writeFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { freshState, runCommand, tempDir } from '../helpers.js';
import { type HostileGateway, againstHostile, balanceBody } from '../adversarial/hostile-gateway.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

/** A gateway whose counters move between readings: the key's spend today and the account's lifetime spend. */
function counters(readings: { used: string; lifetime: string }[]) {
  const day = Date.UTC(2026, 10, 21) / 1000;
  return againstHostile(
    {
      name: 'counters',
      routes: {
        '/v1/open/balance': ({ count }) => {
          const r = readings[Math.min(count, readings.length) - 1]!;
          return { body: balanceBody({ used: `"${r.used}"`, extra: '' }).replace('"lifetime_spend": "5.00000000"', `"lifetime_spend": "${r.lifetime}"`) };
        },
        '/v1/open/usage': { body: `{"buckets": [{"t": ${day}, "cost": "1.00"}], "totals": {"cost": "1.00"}}` },
      },
    },
    NOW,
    gateways,
  );
}

describe('tally mark and check --max-run-spend', () => {
  it("gates on this key's spend since the mark, exactly, and says the basis", async () => {
    const { run } = await counters([{ used: '1.25000000', lifetime: '100.00000000' }, { used: '3.50000001', lifetime: '107.00000000' }]);
    const mark = await run(['mark', '--json']);
    expect(mark.code).toBe(0);
    const made = JSON.parse(mark.stdout);
    expect(made).toMatchObject({ version: 1, name: 'run', profile: 'default', lifetime_spend: '100.00000000', key: { daily_cost_used: '1.25000000', day: Date.UTC(2026, 10, 21) / 1000 } });
    expect(mark.stdout).not.toContain('gw-sk');
    const check = await run(['check', '--max-run-spend', '2', '--json']);
    expect(check.code).toBe(5);
    const [result] = JSON.parse(check.stdout).checks;
    expect(result).toMatchObject({ name: 'max-run-spend', level: 'fail', actual: '2.25000001', limit: '2', unit: 'CNY', basis: 'key' });
    expect(result.detail).toContain("this key's spend today since the mark");
  });

  it("falls back to the account's lifetime spend when the key's counter went down, and says so", async () => {
    const { run } = await counters([{ used: '4.00000000', lifetime: '100.00000000' }, { used: '0.50000000', lifetime: '103.00000000' }]);
    await run(['mark']);
    const check = await run(['check', '--warn-run-spend', '2', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).checks[0]).toMatchObject({ name: 'warn-run-spend', level: 'warn', actual: '3', basis: 'account' });
    expect(JSON.parse(check.stdout).checks[0].detail).toContain("the whole account's spend");
  });

  it('keeps a mark in a file the job names, and refuses a missing, corrupt or foreign one (exit 2, with the command that makes one)', async () => {
    const { run, env } = await counters([{ used: '1', lifetime: '1' }]);
    const dir = tempDir();
    try {
      const file = `${dir.path}/mark.json`;
      expect((await run(['mark', '--file', file])).code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
      expect((await run(['check', '--max-run-spend', '5', '--mark-file', file])).code).toBe(0);
      const missing = await runCommand(['check', '--max-run-spend', '5'], { env: { ...env, TALLY_CONFIG_DIR: freshState() }, now: () => NOW });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('there is no mark "run"');
      expect(missing.stderr).toContain('make one at the start of the job with `tally mark`');
      writeFileSync(file, '{"version": 99}');
      const corrupt = await run(['check', '--max-run-spend', '5', '--mark-file', file]);
      expect(corrupt.code).toBe(2);
      expect(corrupt.stderr).toContain('is not a mark tally wrote');
      expect((await run(['mark', '--file', file])).code).toBe(0);
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), profile: 'other' }));
      const foreign = await run(['check', '--max-run-spend', '5', '--mark-file', file]);
      expect(foreign.code).toBe(2);
      expect(foreign.stderr).toContain('was made for profile "other"');
    } finally {
      dir.remove();
    }
  });
});

describe('reports a CI system reads', () => {
  it('writes JUnit XML that parses whatever text the gateway sent, whole even when check fails (exit 5)', async () => {
    const hostile = '<&>"\'\u0001]]>';
    const { run } = await againstHostile({ name: 'junit', routes: { '/v1/models': { body: JSON.stringify({ object: 'list', data: [{ id: `gpt-5${hostile}` }] }) }, '/v1/open/balance': { body: balanceBody() } } }, NOW, gateways);
    const dir = tempDir();
    try {
      const file = `${dir.path}/report.xml`;
      const result = await run(['check', '--min-balance', '1000', '--warn-balance', '99999', '--require-model', `x${hostile}`, '--junit', file]);
      expect(result.code).toBe(5);
      const xml = readFileSync(file, 'utf8');
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml);
      const suite = parsed.testsuites.testsuite;
      expect([suite['@_tests'], suite['@_failures']]).toEqual(['3', '2']);
      expect(suite.testcase.map((c: Record<string, unknown>) => c['@_name'])).toEqual(['min-balance', 'warn-balance', `require-model:x<&>"'\ufffd]]>`]);
      expect(suite.testcase[0].failure['@_message']).toBe('actual ¥100.00, limit ¥1,000.00');
    } finally {
      dir.remove();
    }
  });

  it('prints the step summary as Markdown with --markdown, ready for a pull-request comment', async () => {
    const { run } = await againstHostile({ name: 'md', routes: { '/v1/open/balance': { body: balanceBody() } } }, NOW, gateways);
    const result = await run(['check', '--min-balance', '10', '--markdown']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(['### tally check', '', '| result | check | measured |', '| --- | --- | --- |', '| ✅ pass | min-balance | actual ¥100.00, limit ¥10.00 |', ''].join('\n'));
  });
});

describe('marks under --demo', () => {
  it('are found by the next --demo command: the demo gateway is one gateway, whatever port it listens on; --demo never writes into the state folder', async () => {
    const state = freshState();
    const env = { TALLY_CONFIG_DIR: state };
    const refused = await runCommand(['--demo', 'mark'], { env, now: () => NOW });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--demo never touches stored state: a demo mark goes to a file you name (--file PATH)');
    const file = `${state}/named/demo-mark.json`;
    const mark = await runCommand(['--demo', 'mark', '--file', file, '--json'], { env, now: () => NOW });
    expect(mark.code).toBe(0);
    expect(JSON.parse(mark.stdout).base_url).toBe('http://demo.tally.invalid/');
    const check = await runCommand(['--demo', 'check', '--max-run-spend', '5', '--mark-file', file, '--json'], { env, now: () => NOW });
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).checks[0]).toMatchObject({ name: 'max-run-spend', level: 'pass', actual: '0' });
  });
});

describe('mark --fail-open', () => {
  it('records that no mark was taken when the gateway is down, and check --max-run-spend --fail-open then warns and skips', async () => {
    const day = Date.UTC(2026, 10, 21) / 1000;
    const blip = await againstHostile(
      {
        name: 'blip',
        routes: {
          // Down at the job's start, back by its end.
          '/v1/open/balance': ({ count }) => (count === 1 ? { status: 500, body: '{"error": "upstream down"}' } : { body: balanceBody() }),
          '/v1/open/usage': { body: `{"buckets": [{"t": ${day}, "cost": "1.00"}], "totals": {"cost": "1.00"}}` },
        },
      },
      NOW,
      gateways,
    );
    const dir = tempDir();
    try {
      const file = `${dir.path}/mark.json`;
      const marked = await blip.run(['mark', '--fail-open', '--file', file]);
      expect(marked.code).toBe(0);
      expect(marked.stderr).toContain('--fail-open: no mark was taken');
      const kept = JSON.parse(readFileSync(file, 'utf8'));
      expect(kept.not_taken).toContain('upstream down');
      expect(kept.lifetime_spend).toBeUndefined();
      const skipped = await blip.run(['check', '--max-run-spend', '5', '--mark-file', file, '--fail-open', '--json']);
      expect(skipped.code).toBe(0);
      expect(JSON.parse(skipped.stdout).checks[0]).toMatchObject({ name: 'max-run-spend', level: 'warn', actual: null });
      const strict = await blip.run(['check', '--max-run-spend', '5', '--mark-file', file]);
      expect(strict.code).toBe(2);
      expect(strict.stderr).toContain('no mark was taken at the start of the job');
      const down = await againstHostile({ name: 'down', routes: { '/v1/open/balance': { status: 500, body: '{"error": "down"}' } } }, NOW, gateways);
      expect((await down.run(['mark', '--file', `${dir.path}/other.json`])).code).toBe(1);
    } finally {
      dir.remove();
    }
  });
});
