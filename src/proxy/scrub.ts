// The gateway's key never reaches a client: an answer that carries it (a gateway echoing the
// credential in an error, in any of the encodings secretForms knows) has each occurrence
// overwritten byte for byte with `*`, so a Content-Length stays true. Read as it passes: only a
// chunk's last bytes that could begin the key are held until the next chunk shows they do not
// (an event stream's chunks end in a blank line, which begins no key: nothing is held).
import { secretForms } from '../domain/secrets.js';

export class KeyScrubber {
  readonly #forms: Buffer[];
  #held: Buffer = Buffer.alloc(0);

  /** The forms of one key, worked out once for every answer the proxy passes. */
  static formsOf(secret: string): Buffer[] {
    return [...new Set(secretForms(secret))].filter((f) => f.length >= 8).map((f) => Buffer.from(f));
  }

  constructor(forms: Buffer[]) {
    this.#forms = forms;
  }

  /** A header's value with the key overwritten (`*`: what a header may carry). */
  static scrubHeader(value: string, forms: Buffer[]): string {
    let text = value;
    for (const form of forms) {
      const f = form.toString();
      if (text.includes(f)) text = text.split(f).join('*'.repeat(f.length));
    }
    return text;
  }

  /** The bytes that may go to the client now. */
  push(chunk: Uint8Array): Buffer {
    const data = this.#held.length ? Buffer.concat([this.#held, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let copied = false;
    let out = data;
    for (const form of this.#forms) {
      let at = out.indexOf(form);
      while (at !== -1) {
        if (!copied) {
          out = Buffer.from(out);
          copied = true;
        }
        out.fill(42, at, at + form.length);
        at = out.indexOf(form, at + form.length);
      }
    }
    const hold = this.#partial(out);
    this.#held = hold ? Buffer.from(out.subarray(out.length - hold)) : Buffer.alloc(0);
    return hold ? out.subarray(0, out.length - hold) : out;
  }

  /** What was held at the end of the answer (it began no key after all). */
  end(): Buffer {
    const rest = this.#held;
    this.#held = Buffer.alloc(0);
    return rest;
  }

  /** The length of the longest end of `data` that is the beginning of a form. */
  #partial(data: Buffer): number {
    let longest = 0;
    for (const form of this.#forms) {
      for (let k = Math.min(form.length - 1, data.length); k > longest; k--) {
        if (data[data.length - k] === form[0] && data.subarray(data.length - k).equals(form.subarray(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  }
}
