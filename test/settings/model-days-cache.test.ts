// Remembered days of models (settings/model-days-cache.ts): a day is kept once it has been over for
// an hour, per gateway and credential, in a private file that never names the key; a file that is
// not exactly what tally writes is read as nothing; two runs writing keep each other's days; a
// clock set back does not serve a day that has not ended by it.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DAYS, type RememberedDay, SETTLED_AFTER, readModelDays, rememberModelDays } from '../../src/settings/model-days-cache.js';

const DAY = 86_400;
const START = Date.UTC(2026, 10, 1, 16) / 1000; // a +08:00 day
const GW = new URL('https://gw.example.com/');
const SECRET = 'sk-days-0123456789abcdef0123456789';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-days-'));
  dirs.push(dir);
  return dir;
};
const day = (n: number, spent: [string, string][] = [['deepseek-chat', '1.25']], tokens: string[] = ['deepseek-chat']): RememberedDay => ({ start: START + n * DAY, end: START + (n + 1) * DAY, spent, tokens });
const fileOf = (dir: string) => join(dir, 'cache', readdirSync(join(dir, 'cache')).find((f) => f.startsWith('model-days-'))!);

describe('remembered days of models', () => {
  it('keeps a day an hour after it ends, for this gateway and key only, in a private file without the key', () => {
    const dir = fresh();
    const ended = START + 3 * DAY;
    rememberModelDays(dir, GW, SECRET, [day(0), day(1), day(2), day(3)], ended + SETTLED_AFTER);
    // Day 3 ends later than an hour before: not kept.
    expect([...readModelDays(dir, GW, SECRET, ended + SETTLED_AFTER).keys()]).toEqual([day(0).start, day(1).start, day(2).start]);
    expect(readModelDays(dir, GW, SECRET, ended + SETTLED_AFTER).get(day(1).start)).toEqual(day(1));
    expect(readModelDays(dir, GW, 'sk-another-key-0123456789abcdef', ended + SETTLED_AFTER).size).toBe(0);
    expect(readModelDays(dir, new URL('https://other.example.com/'), SECRET, ended + SETTLED_AFTER).size).toBe(0);
    expect(statSync(fileOf(dir)).mode & 0o777).toBe(0o600);
    expect(readFileSync(fileOf(dir), 'utf8')).not.toContain(SECRET);
    // A clock set back: a day not over an hour by then is not served.
    expect([...readModelDays(dir, GW, SECRET, START + 2 * DAY).keys()]).toEqual([day(0).start]);
  });

  it('two runs keep each other\'s days, and the newest days are kept', () => {
    const dir = fresh();
    const now = START + 400 * DAY;
    rememberModelDays(dir, GW, SECRET, [day(0)], now);
    rememberModelDays(dir, GW, SECRET, [day(1)], now);
    expect(readModelDays(dir, GW, SECRET, now).size).toBe(2);
    rememberModelDays(dir, GW, SECRET, Array.from({ length: MAX_DAYS + 10 }, (_, i) => day(i + 2)), now);
    const kept = [...readModelDays(dir, GW, SECRET, now).keys()];
    expect(kept).toHaveLength(MAX_DAYS);
    expect(kept[0]).toBe(day(12).start);
  });

  it.each([
    ['not JSON', 'days'],
    ['a day without its end', JSON.stringify({ days: [{ start: START, spent: [], tokens: [] }] })],
    ['a negative amount', [['m', '-1.00']]],
    ['an amount as a JSON number', [['m', 1.5]]],
    ['a model twice', [['m', '1'], ['m', '2']]],
    ['a day of three days', 'long'],
  ] as const)('a file with %s is read as nothing remembered', (_, bad) => {
    const dir = fresh();
    const now = START + 10 * DAY;
    rememberModelDays(dir, GW, SECRET, [day(0), day(1)], now);
    const file = JSON.parse(readFileSync(fileOf(dir), 'utf8'));
    const text = typeof bad === 'string' && bad !== 'long' ? bad : JSON.stringify({ ...file, days: [file.days[0], bad === 'long' ? { ...file.days[1], end: file.days[1].start + 3 * DAY } : { ...file.days[1], spent: bad }] });
    writeFileSync(fileOf(dir), text);
    expect(readModelDays(dir, GW, SECRET, now).size).toBe(0);
  });

  it('a state folder that cannot be written costs nothing but the cache', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'cache'), 'a file where the folder would be');
    expect(() => rememberModelDays(dir, GW, SECRET, [day(0)], START + 10 * DAY)).not.toThrow();
    expect(readModelDays(dir, GW, SECRET, START + 10 * DAY).size).toBe(0);
  });

  it('what is read back is what was kept, whatever the names and amounts', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'cache'));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.string({ maxLength: 40 }), fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.nat({ max: 12 })), { selector: (t) => t[0], maxLength: 8 }), fc.uniqueArray(fc.string({ maxLength: 40 }), { maxLength: 5 }), (models, tokens) => {
        const spent: [string, string][] = models.map(([m, units, places]) => {
          const digits = units.toString().padStart(places + 1, '0');
          return [m, places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits];
        });
        const kept = day(0, spent, tokens);
        rmSync(join(dir, 'cache'), { recursive: true, force: true });
        rememberModelDays(dir, GW, SECRET, [kept], START + 10 * DAY);
        const back = readModelDays(dir, GW, SECRET, START + 10 * DAY).get(kept.start)!;
        expect(new Map(back.spent)).toEqual(new Map(spent));
        expect(new Set(back.tokens)).toEqual(new Set(tokens));
      }),
      { numRuns: 60 },
    );
  });
});
