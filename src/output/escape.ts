// Text from the service is data: it must never drive the terminal (recolour, retitle, clear).

// C0 controls, DEL, C1 controls (incl. CSI 0x9b), line/paragraph separators, and the
// bidirectional overrides and isolates (which can make text read differently than it is).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/g;

/** Makes a string safe for one terminal cell: every control character shown as an escape. */
const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;

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
