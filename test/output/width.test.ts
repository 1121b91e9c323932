import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it, vi } from 'vitest';
import { displayWidth, prepareWidths } from '../../src/output/width.js';

// Every code point of the first four planes but surrogates, as a one-character string.
const CHARACTERS: string[] = [];
for (let cp = 0x20; cp < 0x40000; cp++) if (cp < 0xd800 || cp > 0xdfff) CHARACTERS.push(String.fromCodePoint(cp));

describe('displayWidth', () => {
  it('agrees with string-width on every single character', async () => {
    await prepareWidths(CHARACTERS);
    const disagreements = CHARACTERS.filter((c) => displayWidth(c) !== stringWidth(c)).map((c) => c.codePointAt(0)!.toString(16));
    expect(disagreements).toEqual([]);
  });

  it('agrees with string-width on strings of them, where characters may join into one cluster', async () => {
    await prepareWidths(CHARACTERS);
    const character = fc.integer({ min: 0, max: CHARACTERS.length - 1 }).map((i) => CHARACTERS[i]!);
    // Mostly CJK and Latin with some of everything: marks, jamo, emoji, joiners, prepends.
    const text = fc.array(fc.oneof(character, fc.constantFrom('智', '谱', 'a', 'ｶ', 'ﾞ', '\u0d4e', '\u1100', '\u1161', '\u200d', '\ufe0f', '👍', '🏽', '\u0301', '한')), { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, (t) => displayWidth(t) === stringWidth(t)), { numRuns: 20_000 });
  });

  it('measures CJK and kana without string-width (~40 ms to load), colour codes as nothing', async () => {
    vi.resetModules();
    let loaded = false;
    vi.doMock('string-width', () => {
      loaded = true;
      return { default: () => 2 };
    });
    try {
      const fresh = await import('../../src/output/width.js');
      const texts = ['智谱 AI', '\u001b[32m通义\u001b[39m', 'ｶﾞ', 'Ωμέγα', 'Москва'];
      await fresh.prepareWidths(texts);
      expect(texts.map(fresh.displayWidth)).toEqual([7, 4, 2, 5, 6]);
      expect(loaded).toBe(false);
      await fresh.prepareWidths(['👍🏽']);
      expect(loaded).toBe(true);
    } finally {
      vi.doUnmock('string-width');
      vi.resetModules();
    }
  });
});
