// How results look on this output: colour, width, box drawing. Pipes get plain ASCII.
import type { Context } from '../context.js';
import type { Painter, Style } from './table.js';

const PLAIN: Painter = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };

export async function styleFor(ctx: Context): Promise<Style> {
  const tty = ctx.io.stdoutIsTTY;
  // chalk loads only when there is colour to paint.
  const paint = ctx.io.color ? new (await import('chalk')).Chalk({ level: 1 }) : PLAIN;
  const wide = ctx.options.wide;
  return { color: ctx.io.color, width: tty && !wide ? ctx.io.width : Number.POSITIVE_INFINITY, unicode: tty, paint, wide };
}
