// What tally reads back from its own cache files is untrusted too: validated as strictly as the
// service's answers, escaped on the way to a terminal, and never worth a hang.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { freshState, runCommand } from '../helpers.js';
import { TERMINAL_CONTROL } from './hostile-gateway.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ catalogSize: 2000 });
});
afterAll(async () => {
  await sandbox.close();
});

describe('adversarial: cache files', () => {
  it('does not trust a listing whose prices were tampered with: the whole catalog answers instead, escaped', async () => {
    const dir = freshState();
    const env = { TALLY_BASE_URL: sandbox.baseUrl, TALLY_CONFIG_DIR: dir };
    expect((await runCommand(['pricing', '--model', 'gpt-5'], { env })).code).toBe(0);
    const listing = join(dir, 'cache', readdirSync(join(dir, 'cache')).find((f) => f.endsWith('.listing.json'))!);
    const text = readFileSync(listing, 'utf8');
    writeFileSync(listing, text.replace('"0.00875000"', '"\\u001b[2J0.00875000"').replace('"OpenAI"', '"Open\\u009bAI"'));
    const before = sandbox.requestsTo('/api/pricing').length;
    const result = await runCommand(['pricing', '--model', 'gpt-5', '--offline'], { env, tty: true, width: 300 });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(result.stdout).toMatch(/^gpt-5 +OpenAI +openai, openai-response, openai-response-compact, anthropic +¥8\.7500 +¥70\.0000 +¥0\.8750$/m);
    expect(sandbox.requestsTo('/api/pricing').length).toBe(before);
  });

  it('ignores a day-grid cache that says something other than a day grid', async () => {
    const dir = freshState();
    const env = { TALLY_BASE_URL: sandbox.baseUrl, TALLY_API_KEY: sandbox.demoKey, TALLY_CONFIG_DIR: dir, TZ: 'UTC' };
    expect((await runCommand(['usage'], { env })).code).toBe(0);
    const file = join(dir, 'cache', readdirSync(join(dir, 'cache')).find((f) => f.startsWith('grid-'))!);
    for (const tampered of ['{"base_url": "x", "day_offset": 0}', `{"base_url": "${sandbox.baseUrl}/", "day_offset": 1e9}`, `{"base_url": "${sandbox.baseUrl}/", "day_offset": "\\u001b[2J"}`, 'not json']) {
      writeFileSync(file, tampered);
      const result = await runCommand(['logs', '--json'], { env });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).start_iso).toMatch(/T00:00:00\+00:00$/);
    }
  });

  it('bounds CPU-bound work by --timeout, not only waiting', async () => {
    const dir = freshState();
    const env = { TALLY_BASE_URL: sandbox.baseUrl, TALLY_CONFIG_DIR: dir };
    expect((await runCommand(['pricing', '--json'], { env })).code).toBe(0);
    const result = await runCommand(['pricing', '--offline', '--model', '*a*a*b*', '--timeout', '0.001'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('tally: timed out after 0.001s\n');
  });
});
