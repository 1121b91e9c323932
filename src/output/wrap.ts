// Lines that fit the terminal: text longer than the width wraps at word boundaries (wrap-ansi,
// which keeps colour codes intact), and a word longer than a line is broken. Loaded only when a
// line is too long.
import { displayWidth, prepareWidths } from './width.js';

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
