// What a run says on stderr that is not a result: --debug lines, warnings, notes that fit the
// terminal, and a progress line redrawn in place. Text from data in any of them is escaped.
import type { IO } from './io.js';
import { escapeControl } from './output/escape.js';
import { wrapNote } from './output/wrap.js';

export class Notices<Options extends { debug?: boolean } = { debug?: boolean }> {
  readonly io: IO;
  readonly options: Options;
  readonly now: () => number;

  constructor(io: IO, options: Options, now: () => number) {
    this.io = io;
    this.options = options;
    this.now = now;
  }

  /** A --debug line on stderr; text from the network in it is escaped. */
  debug(line: string): void {
    if (this.options.debug) this.io.err(`[debug] ${escapeControl(line)}\n`);
  }

  #quiet = false;

  /** For output that sits in a prompt (statusline): warnings and notes go to --debug only. */
  quiet(): void {
    this.#quiet = true;
  }

  /** A warning on stderr (the run goes on). */
  warn(message: string): void {
    if (this.#quiet) return this.debug(`warning: ${message}`);
    this.endProgress();
    this.io.err(`${this.#fitted(`warning: ${escapeControl(message)}`)}\n`);
  }

  #warned = new Set<string>();

  /** A warning said once per run however often what it is about is read (the profile chosen, say). */
  warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.warn(message);
  }

  /** A line for the person at the terminal that is not a result (more pages to fetch, say). */
  note(message: string): void {
    if (this.#quiet) return this.debug(message);
    this.endProgress();
    this.io.err(`${this.#fitted(escapeControl(message))}\n`);
  }

  /** A note that fits the terminal behind stderr, broken at spaces (never mid-word). */
  #fitted(text: string): string {
    return this.io.stderrIsTTY ? wrapNote(text, this.io.width, 2) : text;
  }

  #progressSince: number | undefined;
  #progressShown = false;

  /**
   * A progress line on a terminal's stderr, redrawn in place; shown only once the work has
   * taken a second, so quick runs never flash. `undefined` clears it.
   */
  progress(text: string | undefined, options: { now?: boolean } = {}): void {
    if (!this.io.stderrIsTTY || this.#quiet) return;
    if (text === undefined) return this.endProgress();
    this.#progressSince ??= this.now();
    if (!options.now && this.now() - this.#progressSince < 1000) return;
    this.io.err(`\r\u001b[K${escapeControl(text)}`);
    this.#progressShown = true;
  }

  /** Clears the progress line, before a note or at the end. */
  endProgress(): void {
    if (this.#progressShown) this.io.err('\r\u001b[K');
    this.#progressShown = false;
    this.#progressSince = undefined;
  }
}
