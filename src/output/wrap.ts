// Lines that fit the terminal: text longer than the width wraps at word boundaries (wrap-ansi,
// which keeps colour codes intact), and a word longer than a line is broken. Loaded only when a
// line is too long.
import { NARROW, displayWidth, isZeroWidth, prepareWidths } from './width.js';

/** `text` with every line wrapped to `width` columns (Infinity: unchanged). */
export async function fitLines(text: string, width: number): Promise<string> {
  if (!Number.isFinite(width)) return text;
  const lines = text.split('\n');
  await prepareWidths(lines);
  if (lines.every((line) => displayWidth(line) <= width)) return text;
  const room = Math.max(width, 10);
  const long = lines.some((line) => line.length > LONG_LINE);
  const [{ default: wrapAnsi }, { eastAsianWidth }] = await Promise.all([import('wrap-ansi'), long ? import('get-east-asian-width') : { eastAsianWidth: undefined }]);
  return lines
    .map((line) => (displayWidth(line) <= room ? line : line.length > LONG_LINE ? wrapLinear(line, room, eastAsianWidth!) : wrapAnsi(line, room, { hard: true, trim: true })))
    .join('\n');
}

/**
 * A line longer than this (a megabyte-long model name from the gateway) is wrapped in one pass:
 * wrap-ansi takes time quadratic in a word of wide or zero-width characters.
 */
const LONG_LINE = 4096;
// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[[0-9;]*m/y;

/** Wraps at spaces, breaking a word longer than a line; colour codes take no column. Linear in the line. */
function wrapLinear(line: string, room: number, eastAsianWidth: (codePoint: number) => number): string {
  const out: string[] = [];
  let current = '';
  let used = 0;
  let word = '';
  let wordWidth = 0;
  const flushWord = () => {
    if (used > 0 && used + 1 + wordWidth > room) {
      out.push(current);
      current = '';
      used = 0;
    }
    current += used > 0 ? ` ${word}` : word;
    used += (used > 0 ? 1 : 0) + wordWidth;
    word = '';
    wordWidth = 0;
  };
  for (let i = 0; i < line.length; ) {
    COLOUR.lastIndex = i;
    const colour = line.charCodeAt(i) === 0x1b ? COLOUR.exec(line) : null;
    if (colour) {
      word += colour[0];
      i += colour[0].length;
      continue;
    }
    const codePoint = line.codePointAt(i)!;
    const character = String.fromCodePoint(codePoint);
    i += character.length;
    if (character === ' ') {
      if (word !== '' || wordWidth > 0) flushWord();
      continue;
    }
    const width = isZeroWidth(character) ? 0 : eastAsianWidth(codePoint);
    if (wordWidth + width > room) {
      // A word longer than a line: what it has so far takes a line of its own.
      if (used > 0) {
        out.push(current);
        current = '';
        used = 0;
      }
      out.push(word);
      word = '';
      wordWidth = 0;
    }
    word += character;
    wordWidth += width;
  }
  if (word !== '') flushWord();
  if (current !== '') out.push(current);
  return out.join('\n');
}

/**
 * The same for a note on stderr, at once (no library to load): narrow text wraps at spaces, a
 * word longer than a line is broken; other text is left as it is. Continuation lines are
 * indented by `indent` spaces.
 */
export function wrapNote(text: string, width: number, indent = 0): string {
  if (!Number.isFinite(width) || width < 20) return text;
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= width || !NARROW.test(line)) return line;
      const out: string[] = [];
      let current = '';
      const room = () => width - (out.length > 0 ? indent : 0);
      for (const word of line.split(' ')) {
        let rest = word;
        while (rest.length > room()) {
          if (current) {
            out.push(current);
            current = '';
            continue;
          }
          out.push(rest.slice(0, room()));
          rest = rest.slice(room());
        }
        if (!current) current = rest;
        else if (current.length + 1 + rest.length <= room()) current += ` ${rest}`;
        else {
          out.push(current);
          current = rest;
        }
      }
      if (current) out.push(current);
      return out.map((part, i) => (i === 0 ? part : `${' '.repeat(indent)}${part}`)).join('\n');
    })
    .join('\n');
}
