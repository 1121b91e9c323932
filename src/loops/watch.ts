// --watch [SECONDS] on `status`, `balance` and `usage`: refresh every SECONDS (default 60, at
// least 10). On a terminal the view is redrawn in place (log-update) under a header saying when
// it was last refreshed; a failed refresh keeps the last good view and says why in the header.
// With --json every refresh is one JSON document on its own line (NDJSON). Each refresh has the
// whole --timeout; Ctrl-C restores the terminal and exits 130.
import type { Context } from '../context.js';
import { Interrupted, UsageError } from '../errors.js';
import { type Result, emit, writeJson } from '../output/emit.js';
import { wholeNumber } from '../flags/flag-values.js';
import { declareFlags } from '../flags/declare.js';

export const DEFAULT_WATCH_SECONDS = 60;
export const MIN_WATCH_SECONDS = 10;

/** --watch [SECONDS], declared once for the commands that refresh. */
export const WATCH_FLAGS = declareFlags({
  watch: { kind: 'optional', value: 'seconds', help: `refresh every SECONDS (default ${DEFAULT_WATCH_SECONDS}, at least ${MIN_WATCH_SECONDS}); with --json one document per line` },
});

/** A refresh: what to show, and a word for the header (the gateway answered from its cache, say). */
export interface Refresh extends Result {
  note?: string;
}

export function watchSeconds(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (value === true) return DEFAULT_WATCH_SECONDS;
  const seconds = wholeNumber(value, '--watch', 0);
  if (seconds < MIN_WATCH_SECONDS) throw new UsageError(`--watch must be at least ${MIN_WATCH_SECONDS} seconds (got ${String(value)}): each refresh makes requests against the gateway's rate limit`);
  return seconds;
}

/** --watch as a command's request states it: the seconds between refreshes, or undefined (once). */
export function watchFlag(value: unknown, output: { csv: boolean }): number | undefined {
  const seconds = watchSeconds(value);
  if (seconds !== undefined && output.csv) throw new UsageError('--watch shows a table or JSON documents; it cannot be combined with --csv');
  return seconds;
}

/** Runs `load` once, or every `seconds` (a request's --watch) until Ctrl-C. */
export async function watchOrRun(ctx: Context, seconds: number | undefined, title: string, load: () => Promise<Refresh>): Promise<void> {
  if (seconds === undefined) return emit(ctx, await load());
  const [{ errorText, errorJson }, { isoInZone }] = await Promise.all([import('../output/error-text.js'), import('../domain/zone.js')]);
  // HH:MM:SS in the display zone.
  const clock = () => isoInZone(Math.floor(ctx.now() / 1000), ctx.zone).slice(11, 19);
  const redraw = ctx.io.stdoutIsTTY && !ctx.options.json ? await frameWriter(ctx) : undefined;
  let lastGood: { text: string; at: string; note?: string } | undefined;
  try {
    for (;;) {
      ctx.renewDeadline();
      let refresh: Refresh | undefined;
      let failure: string | undefined;
      try {
        refresh = await load();
      } catch (error) {
        // Ctrl-C and bad flags end the watch; a gateway that failed this once is retried next time.
        if (error instanceof Interrupted || ctx.interrupt.aborted || error instanceof UsageError) throw error;
        const text = errorText(error, ctx.secrets);
        if (ctx.options.json) ctx.io.err(`${errorJson(text)}\n`);
        failure = text.message;
      }
      if (ctx.options.json) {
        if (refresh) await writeJson(ctx, typeof refresh.json === 'function' ? (refresh.json as () => unknown)() : refresh.json);
      } else {
        const at = clock();
        if (refresh) lastGood = { text: await refresh.human(), at, note: refresh.note };
        const every = `every ${seconds}s`;
        // The header is one line of the screen, whatever its width: the parts that matter least give way first.
        const [needed, optional] = failure
          ? [[title, every, `refresh failed at ${at}`], lastGood ? [`showing ${lastGood.at}`] : []]
          : [[title, every, `updated ${at}`], [...(lastGood?.note ? [lastGood.note] : []), 'Ctrl-C to stop']];
        // On a terminal the header is one line of the screen (it never wraps off the top); why a refresh failed is the line under it.
        const header = redraw ? await oneLine(needed, optional, ctx.io.width) : [...needed, ...optional].join(' · ');
        const why = failure === undefined ? '' : redraw ? await oneLine([failure], [], ctx.io.width) : failure;
        const frame = `${header}\n${why}\n${lastGood?.text ?? ''}`;
        if (redraw) redraw(frame);
        else ctx.io.out(`${frame}\n`);
      }
      await ctx.sleep(seconds * 1000, ctx.interrupt).catch(() => undefined);
      if (ctx.interrupt.aborted) throw ctx.interrupt.reason instanceof Interrupted ? ctx.interrupt.reason : new Interrupted('interrupted');
    }
  } finally {
    redraw?.done();
  }
}

/** Parts joined with ` · ` into one line of `width` columns: the optional ones are left out first (the last first), then the line is cut with `…`. */
export async function oneLine(needed: string[], optional: string[], width: number): Promise<string> {
  const { displayWidth, prepareWidths } = await import('../output/width.js');
  const kept = [...needed, ...optional];
  await prepareWidths(kept);
  if (!Number.isFinite(width) || width < 4) return kept.join(' · ');
  while (kept.length > needed.length && displayWidth(kept.join(' · ')) > width) kept.pop();
  let line = kept.join(' · ');
  while (displayWidth(line) > width) line = `${[...line].slice(0, -2).join('')}…`;
  return line;
}

/** Redraws a frame in place on the terminal (log-update), through tally's stdout. */
async function frameWriter(ctx: Context): Promise<((frame: string) => void) & { done(): void }> {
  const [{ createLogUpdate }, { guardTerminalText }] = await Promise.all([import('log-update'), import('../output/escape.js')]);
  const stream = { write: (text: string) => ctx.io.out(text), isTTY: true, columns: ctx.io.width, rows: ctx.io.height };
  const update = createLogUpdate(stream as unknown as NodeJS.WriteStream, { showCursor: true });
  return Object.assign((frame: string) => update(guardTerminalText(fitHeight(frame, ctx.io.height), ctx.io.color)), { done: () => update.done() });
}

/**
 * A frame cut to a terminal `rows` high, as watch(1) does: the header stays, the body loses its
 * last lines (one row is left for the cursor; a frame taller than the screen cannot be redrawn).
 */
export function fitHeight(frame: string, rows: number | undefined): string {
  if (!rows || rows < 2) return frame;
  const lines = frame.split('\n');
  if (lines.length <= rows - 1) return frame;
  return lines.slice(0, rows - 1).join('\n');
}
