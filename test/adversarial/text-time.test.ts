// A gateway's megabyte-long word (CONTRACT: "no text from the gateway, however long, holds a
// command past --timeout"): an error message that is one word of a megabyte, under --timeout 2,
// ends with its error, masked and cut. How each text path's cost grows with its input is timed by
// `BENCH_TEXT=1 npm run bench` (test/support/text-paths.ts), and the patterns themselves are
// checked without a clock (test/domain/regex-linearity.test.ts).
import { describe, expect, it } from 'vitest';
import { type HostileGateway, startHostile } from './hostile-gateway.js';
import { KEY, runTally, tempDir } from '../helpers.js';

const LARGE = 1024 * 1024;

describe('a megabyte-long word from the gateway', () => {
  const gateways: HostileGateway[] = [];
  it.each([
    ['an error message', { status: 400, body: JSON.stringify({ error: { message: `bad ${'x'.repeat(LARGE)}` } }) }],
    ['an error message shaped like a key', { status: 400, body: JSON.stringify({ error: { message: `sk-${'k'.repeat(LARGE)}` } }) }],
  ])('in %s: balance ends with its error under --timeout 2, the word masked and cut', async (_name, answer) => {
    const gateway = await startHostile({ name: 'long word', routes: { '/v1/open/balance': answer } });
    gateways.push(gateway);
    const state = tempDir();
    try {
      const result = await runTally(['balance', '--timeout', '2'], { env: { TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: KEY, TALLY_CONFIG_DIR: state.path }, timeoutMs: 15_000 });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(1);
      expect(result.stderr.length).toBeLessThan(2000);
      expect(result.stderr).not.toContain('k'.repeat(100));
    } finally {
      state.remove();
      await gateway.close();
    }
  });
});
