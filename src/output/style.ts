// How results look on this output: colour, width, box drawing. Pipes get plain ASCII.
import type { Context } from '../context.js';
import type { Style } from './table.js';

export function styleFor(ctx: Context): Style {
  const tty = ctx.io.stdoutIsTTY;
  return { color: ctx.io.color, width: tty ? ctx.io.width : Number.POSITIVE_INFINITY, unicode: tty };
}
