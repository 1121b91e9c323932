// Columns a string takes on a terminal. Three kinds of text, from cheapest to dearest:
// - narrow text (Latin, punctuation, arrows, box drawing): its length, no library;
// - text in which every code point is a character of its own (CJK ideographs, kana, Hangul
//   syllables, fullwidth forms, Cyrillic, ...): the sum of their East Asian Widths, from
//   get-east-asian-width (~3 ms to load);
// - anything else (emoji, combining marks, joiners, jamo, variation selectors): string-width,
//   which segments graphemes. It takes ~40 ms to load and ~20 µs a string, so a catalog whose
//   5,000 vendor names are Chinese must not need it.
// Both libraries agree on the second kind: string-width sums the same widths there (tested
// over every such code point).

// Latin, general punctuation (dashes, ellipsis), arrows, box drawing and block elements:
// one column per UTF-16 unit.
// (Not U+00AD, the soft hyphen, which takes no column; not U+2028-U+202F, line and
// paragraph separators and the bidirectional overrides.)
const NARROW_CHARACTERS = '\\x20-\\x7e\\u00a0-\\u00ac\\u00ae-\\u02ff\\u2010-\\u2027\\u2030-\\u205e\\u2190-\\u21ff\\u2500-\\u259f';
export const NARROW = new RegExp(`^[${NARROW_CHARACTERS}]*$`);
/** The same, and NUL (which joins cells for a look at a whole column at once). */
export const NARROW_OR_NUL = new RegExp(`^[\\x00${NARROW_CHARACTERS}]*$`);

// Code points that are always a grapheme cluster of their own and always visible: not a mark,
// control, format or default-ignorable character, not unassigned or private, not part of an
// emoji (pictographs, skin tones, flags), not a Hangul jamo (jamo combine into syllables) and
// not one of the letters that prefix the next character (Grapheme_Cluster_Break=Prepend), and not
// Thai and Lao AM (U+0E33, U+0EB3): letters, yet spacing marks that join the character before;
// U+113D1, a prepending repha of Unicode 16, is one of the prefixing letters.
// Built on first use: setting up these Unicode properties takes over a millisecond.
let singles: RegExp | undefined;
function isSingles(text: string): boolean {
  singles ??=
    /^[^\p{M}\p{C}\p{Default_Ignorable_Code_Point}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u0d4e\u0e33\u0eb3\u{111c2}\u{111c3}\u{1193f}\u{11941}\u{11a3a}\u{11a84}-\u{11a89}\u{11d46}\u{11f02}\u{113d1}]*$/u;
  return singles.test(text);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

let eastAsianWidth: ((codePoint: number) => number) | undefined;
let stringWidth: ((text: string) => number) | undefined;

/** Loads what measuring these texts takes (usually nothing). */
export async function prepareWidths(texts: Iterable<string>): Promise<void> {
  for (const text of texts) {
    const plain = withoutColour(text);
    if (NARROW.test(plain)) continue;
    if (plain.length > LONG_TEXT || isSingles(plain)) eastAsianWidth ??= (await import('get-east-asian-width')).eastAsianWidth;
    else stringWidth ??= (await import('string-width')).default;
  }
}

/** Columns a string occupies on a terminal (wide characters count two, colour codes none). */
export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  const plain = withoutColour(text);
  if (NARROW.test(plain)) return plain.length;
  if (plain.length > LONG_TEXT) return longWidth(plain, eastAsianWidth ?? (() => 1));
  if (eastAsianWidth && isSingles(plain)) {
    let width = 0;
    for (const character of plain) width += eastAsianWidth(character.codePointAt(0)!);
    return width;
  }
  // Not prepared for (a caller that skipped prepareWidths): count code points.
  return stringWidth ? stringWidth(plain) : [...plain].length;
}

/**
 * Text longer than this (a megabyte-long name from the gateway) is measured in one pass, code
 * point by code point: string-width's grapheme segmentation takes time quadratic in a run of
 * zero-width characters. Marks, controls and default-ignorables take no column there.
 */
const LONG_TEXT = 4096;
let zeroWidth: RegExp | undefined;
/** Whether a character takes no column (a mark, a control, a default-ignorable). The pattern is built on first use: building it costs most of a millisecond. */
export function isZeroWidth(character: string): boolean {
  zeroWidth ??= /[\p{M}\p{C}\p{Default_Ignorable_Code_Point}]/u;
  return zeroWidth.test(character);
}

function longWidth(text: string, width: (codePoint: number) => number): number {
  let total = 0;
  for (const character of text) total += isZeroWidth(character) ? 0 : width(character.codePointAt(0)!);
  return total;
}

function withoutColour(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}
