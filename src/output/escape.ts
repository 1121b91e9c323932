// Text from the service or from a file is data: it must never drive the terminal (recolour,
// retitle, clear, reorder or hide what is shown). Every such string is escaped where it is
// written to a terminal; written to a pipe or a file, data stays exact.

// C0 controls, DEL, C1 controls (incl. CSI 0x9b), the Arabic letter mark, zero-width and
// directional marks (U+200B-U+200F), line and paragraph separators, the bidirectional embeddings,
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), invisible operators (U+2060-U+2064) and
// the byte order mark.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** Makes a string safe for one terminal cell: every control character shown as an escape. */
export function escapeControl(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(CONTROL, (char) => {
    switch (char) {
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      case '\u001b': return '\\e';
      default: return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

// What JSON.stringify leaves as it is but a terminal would act on: DEL, C1 and the invisible
// and directional characters above (C0 controls are already written as \u escapes).
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * JSON text safe for a terminal and still the same JSON: the characters a terminal would act on
 * are written as \u escapes, which any JSON reader decodes back to them.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// In text tally composed for a terminal, the only control characters it writes itself are line
// feeds and colour (SGR: ESC [ digits m). Anything else is escaped as a last line of defence.
const UNSAFE_IN_OUTPUT = /\u001b(?!\[[0-9;]*m)|[\u0000-\u0009\u000b-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Text for a terminal with every control character but line feeds and colour codes escaped. */
export function guardTerminalText(text: string): string {
  return text.replace(UNSAFE_IN_OUTPUT, (char) => escapeControl(char));
}
