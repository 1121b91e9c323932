// What a report says adds up on the page: this key + other keys = the account, in the line and
// in the Markdown table, as the amounts are shown; counts of days are grouped as every count is.
import { describe, expect, it } from 'vitest';
import { KEYS } from '../../src/sandbox/seed.js';
import { runTally } from '../helpers.js';
import { sandboxForFile } from '../support/sandbox-fixture.js';

const NOW = Date.UTC(2026, 10, 25, 9, 30);
const file = sandboxForFile(NOW, { accountLimit: 100_000 });
const key = (name: string) => KEYS.find((k) => k.name === name)!.secret;
const fen = (text: string) => BigInt(text.replace(/[¥,]/g, '').replace('.', ''));

describe('a report on the page', () => {
  it("reconciles this key and the other keys with the account's spend as shown, in the line and the table", async () => {
    for (const name of ['ci-runner', 'demo']) {
      const text = (await runTally(['report'], { env: { ...file.env, TALLY_API_KEY: key(name) }, now: NOW })).stdout;
      const line = /^this key (¥[\d,.]+) \+ other keys (¥[\d,.]+) = the account's (¥[\d,.]+)/m.exec(text);
      expect(line, text).not.toBeNull();
      expect(fen(line![1]!) + fen(line![2]!)).toBe(fen(line![3]!));
      const markdown = (await runTally(['report', '--markdown'], { env: { ...file.env, TALLY_API_KEY: key(name) }, now: NOW })).stdout;
      const row = (label: string) => new RegExp(`^\\| ${label} \\| (¥[\\d,.]+) \\| (¥[\\d,.]+) \\|`, 'm').exec(markdown)!;
      const [mine, others, account] = [row('\\*\\*this key\\*\\*'), row('other keys'), row('\\*\\*the account\\*\\*')];
      for (const column of [1, 2]) expect(fen(mine[column]!) + fen(others[column]!)).toBe(fen(account[column]!));
    }
  });

  it('groups the digits of a runway in days', async () => {
    const text = (await runTally(['report'], { env: { ...file.env, TALLY_API_KEY: key('beta-app') }, now: NOW })).stdout;
    expect(text).toMatch(/^Runway now +\d{1,3}(,\d{3})+ days \(to \d{4}-\d\d-\d\d\)$/m);
  });
});
