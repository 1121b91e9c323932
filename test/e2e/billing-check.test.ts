// tally billing / tally check, built binary against the sandbox.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { Decimal } from '../../src/domain/money.js';
import { runTally, tempDir } from '../helpers.js';

let sandbox: Sandbox;
const state = tempDir();
const env = (key: string) => ({ TALLY_CONFIG_DIR: state.path, TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: key });

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  state.remove();
});

describe('tally billing against the sandbox', () => {
  it('agrees with the native balance for an account-spend key, and never asks the 301 path', async () => {
    const result = await runTally(['billing', '--compare', '--json'], { env: env(sandbox.demoKey) });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.compare.matches).toBe(true);
    expect(out.compare.usage_is_account_spend).toBe(true);
    expect(new Decimal(out.remaining).eq(out.compare.native_balance)).toBe(true);
    expect(sandbox.requestsTo('/api/usage/token')).toHaveLength(0);
    expect(sandbox.requestsTo('/api/usage/token/').length).toBeGreaterThan(0);
  });

  it('reports key spend for a key with a total cost limit, explaining the expected difference; soft_limit_usd still matches', async () => {
    const result = await runTally(['billing', '--compare'], { env: env(sandbox.limitedKey) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Native balance \+ lifetime spend +¥[\d,]+\.\d{2} +vs soft limit ¥[\d,]+\.\d{2}: match$/m);
    expect(result.stdout).toMatch(/^Usage vs lifetime spend +¥[\d,]+\.\d{2} vs ¥[\d,]+\.\d{2}: expected when the key carries a total cost limit/m);
    expect(result.stdout).not.toContain('$');
  });

  it('reads a token record wrapped as {code, message, data} (sandbox --compat-wrap), and an unlimited quota', async () => {
    const wrapped = await startSandbox({ compatWrap: 'code-zero' });
    try {
      const result = await runTally(['billing'], { env: { ...env(wrapped.unlimitedKey), TALLY_BASE_URL: wrapped.baseUrl } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('  name                     unlimited\n  quota                    unlimited (the key has no quota; its amounts mean nothing)\n  expires_at               never\n');
      const asJson = JSON.parse((await runTally(['billing', '--json'], { env: { ...env(wrapped.demoKey), TALLY_BASE_URL: wrapped.baseUrl } })).stdout);
      expect(Object.keys(asJson.token)).toEqual(['code', 'message', 'data']);
      expect(asJson.token.data.object).toBe('token_usage');
    } finally {
      await wrapped.close();
    }
  });

  it('names a compatible endpoint that answers 200 with an error as not read, and shows the others', async () => {
    sandbox.faults.push({ kind: 'error-200', path: '/dashboard/billing/usage' });
    const result = await runTally(['billing'], { env: env(sandbox.demoKey) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Soft limit +¥6,000\.00 /m);
    expect(result.stdout).toContain('billing backend unavailable');
    expect(result.stderr).toBe(`warning: /dashboard/billing/usage was not read: 127.0.0.1:${new URL(sandbox.baseUrl).port} reported an error for /dashboard/billing/usage: billing backend unavailable\n`);
  });
});

describe('tally check against the sandbox', () => {
  it('passes and fails with the documented exit codes, writing the step summary', async () => {
    const summary = join(state.path, 'summary.md');
    const pass = await runTally(['check', '--min-balance', '100', '--max-daily-used', '100%', '--require-model', 'gpt-5'], { env: env(sandbox.demoKey) });
    expect(pass.code).toBe(0);
    expect(pass.stdout.split('\n').filter((l) => l.startsWith('PASS'))).toHaveLength(3);
    const fail = await runTally(['check', '--min-balance', '1000000', '--require-model', 'claude-opus-4.1', '--max-spend', '0.01', '--since', '30d'], {
      env: { ...env(sandbox.limitedKey), GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(fail.code).toBe(5);
    expect(fail.stdout).toMatch(/^::error title=tally check::min-balance: actual ¥[\d,]+\.\d{2}, limit ¥1,000,000\.00$/m);
    expect(fail.stdout).toMatch(/^FAIL +require-model:claude-opus-4\.1 +claude-opus-4\.1: not available to this key$/m);
    expect(fail.stdout).toMatch(/^FAIL +max-spend +actual ¥[\d,]+\.\d{2}, limit ¥0\.01 \(spend = usage totals\."cost" over the window \d{4}-\d{2}-\d{2} 00:00 → \d{4}-\d{2}-\d{2} 00:00 UTC\+00:00 \(30 days\)\)$/m);
    expect(readFileSync(summary, 'utf8')).toContain('| ❌ fail | min-balance | actual ¥');
  });
});
