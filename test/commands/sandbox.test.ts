import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers.js';

describe('tally sandbox', () => {
  it.each([
    [['--port', '70000'], 'tally: --port "70000" is not a whole number from 0 to 65535\n'],
    [['--catalog-size', 'lots'], 'tally: --catalog-size "lots" is not a whole number from 0 to 1000000\n'],
    [['--catalog-size', '-5'], 'tally: --catalog-size "-5" is not a whole number from 0 to 1000000\n'],
    [['--account-limit', '0'], 'tally: --account-limit "0" is not a whole number of at least 1\n'],
    [['--log-size', 'x'], 'tally: --log-size "x" is not a whole number from 0 to 10000000\n'],
    [['--now', 'yesterday'], 'tally: --now "yesterday" is not a time between 2000 and 2099 in ISO 8601 (e.g. 2026-11-22T10:00:00Z)\n'],
    [['--fault', 'meteor'], 'tally: --fault "meteor": unknown kind (one of draining, rate-limit, error-200, success-false, unsupported, html, truncated, hang, stall, reset, slow)\n'],
    [['--fault', 'reset:0'], 'tally: --fault "reset:0": times must be a positive number or "always"\n'],
  ])('refuses %j before starting anything (exit 2)', async (args, message) => {
    const result = await runCommand(['sandbox', ...args]);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr: message });
  });
});
