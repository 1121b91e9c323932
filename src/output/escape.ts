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
// feeds and its own colours: bold, dim, red, green and yellow and their resets (chalk at level 1),
// and those only when colour is on. Any other escape sequence came from data and is escaped, as
// a last line of defence (data is escaped where it is inserted, too).
const TALLY_SGR = /\u001b\[(?:0|1|2|22|31|32|33|39)m/y;
const OTHER_CONTROL = /[\u0000-\u0009\u000b-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Text for a terminal with every control character but line feeds and (with colour on) tally's own colour codes escaped. */
export function guardTerminalText(text: string, colour = true): string {
  const safe = text.replace(OTHER_CONTROL, (char) => escapeControl(char));
  if (!safe.includes('\u001b')) return safe;
  let out = '';
  for (let i = 0; i < safe.length; i++) {
    if (safe[i] !== '\u001b') {
      out += safe[i];
      continue;
    }
    TALLY_SGR.lastIndex = i;
    const own = colour ? TALLY_SGR.exec(safe) : null;
    if (own) {
      out += own[0];
      i += own[0].length - 1;
    } else out += '\\e';
  }
  return out;
}

/**
 * Data inside a cell of GitHub-flavoured Markdown (a step summary, a PR comment): rendered as the
 * same text, never as markup. No line break or carriage return ends the cell or the row; the
 * HTML GitHub renders inside Markdown is entities; emphasis, links, images, code, strikethrough
 * and the cell's own bars are backslash-escaped; autolinks are broken; @-mentions and
 * #-references do not ping. (Within a cell, a line's start, where - or 1. would make a list, never
 * falls.)
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(CONTROL, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]()#!|~]/g, (char) => `\\${char}`)
    .replace(/@/g, '&#64;')
    .replace(/:(?=\/\/)/g, '&#58;')
    .replace(/www\./gi, (www) => `${www.slice(0, 3)}&#46;`);
}

/** Data as a workflow command's message (`::error::TEXT`): what the runner would read as a line break or a new command is escaped. */
export function escapeWorkflowData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(CONTROL, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Data as a workflow command's property value (`title=VALUE`): also its separators. */
export function escapeWorkflowProperty(text: string): string {
  return escapeWorkflowData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
