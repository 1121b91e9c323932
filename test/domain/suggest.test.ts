// "Did you mean": one rule for every closed set of values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest, storedNamesHint } from '../../src/domain/suggest.js';

describe('nearest', () => {
  it.each([
    ['wek', ['hour', 'day', 'week', 'month'], 'week'],
    ['monthly', ['week', 'month'], 'month'],
    ['yesterdy', ['now', 'today', 'yesterday'], 'yesterday'],
    ['Asia/Shangai', ['UTC', 'Asia/Shanghai', 'Asia/Singapore'], 'Asia/Shanghai'],
    ['gpt5', ['gpt-5', 'gpt-5-mini', 'glm-4.6'], 'gpt-5'],
    ['WEEK', ['day', 'week'], 'week'],
    ['nam', ['name', 'input', 'output', 'context'], 'name'],
    ['defalt', ['default', 'work'], 'default'],
  ])('%s -> %s', (typed, choices, meant) => {
    expect(nearest(typed, choices)).toBe(meant);
  });

  it('suggests nothing when nothing is close, when two are equally close, or for what is already a choice', () => {
    expect(nearest('xyz', ['hour', 'day', 'week', 'month'])).toBeUndefined();
    expect(nearest('bsh', ['bash', 'zsh', 'fish'])).toBeUndefined();
    expect(nearest('week', ['day', 'week'])).toBeUndefined();
    expect(nearest('', ['day'])).toBeUndefined();
    expect(didYouMean('wek', ['week'])).toBe('Did you mean "week"?');
  });

  it('never suggests a choice more edits away than the rule allows (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 14 }), fc.array(fc.string({ minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 8 }), (typed, choices) => {
        const meant = nearest(typed, choices);
        if (meant === undefined) return;
        expect(choices).toContain(meant);
        expect(meant).not.toBe(typed.trim());
        const longest = Math.max(typed.trim().length, meant.length);
        const squeeze = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
        const same = squeeze(meant) === squeeze(typed) && squeeze(typed) !== '';
        expect(same || editDistance(typed.trim().toLowerCase(), meant.toLowerCase()) <= (longest >= 12 ? 3 : longest >= 6 ? 2 : 1)).toBe(true);
      }),
    );
  });

  it('measures edits as insertions, deletions, substitutions and swaps of neighbours', () => {
    expect(editDistance('week', 'wek')).toBe(1);
    expect(editDistance('week', 'ewek')).toBe(1);
    expect(editDistance('abc', 'xyz')).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });

  it('hints a stored name: the one meant, then those there are', () => {
    expect(storedNamesHint('defalt', ['default', 'work'], 'Stored profiles', 'none')).toBe('Did you mean "default"?\nStored profiles: default, work.');
    expect(storedNamesHint('x', [], 'Stored profiles', 'none')).toBe('none');
  });
});
