// Lines that fit the terminal: text longer than the width wraps at word boundaries (wrap-ansi,
// which keeps colour codes intact), and a word longer than a line is broken. Loaded only when a
// line is too long.
import { NARROW, displayWidth, prepareWidths } from './width.js';

/** `text` with every line wrapped to `width` columns (Infinity: unchanged). */
export async function fitLines(text: string, width: number): Promise<string> {
  if (!Number.isFinite(width)) return text;
  const lines = text.split('\n');
  await prepareWidths(lines);
  if (lines.every((line) => displayWidth(line) <= width)) return text;
  const { default: wrapAnsi } = await import('wrap-ansi');
  const room = Math.max(width, 10);
  return lines.map((line) => (displayWidth(line) <= room ? line : wrapAnsi(line, room, { hard: true, trim: true }))).join('\n');
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
