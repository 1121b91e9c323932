// What an inference answer says it used, read as it passes through the proxy: the `usage` of a
// JSON answer, or of a streamed one (server-sent events: the last event that carries usage, and
// for a messages-style stream the input of its start with the output of its last delta). Field
// names are the interfaces' own (prompt_tokens / input_tokens, completion_tokens / output_tokens,
// cached tokens under either family's name); anything else is left unread, never guessed.

/** Tokens an answer reports, and the model it names. */
export interface CallUsage {
  model?: string;
  input?: number;
  output?: number;
  cacheRead?: number;
  /** Cache reads are counted beside the input (a messages-style usage), not inside it. */
  cacheBeside?: boolean;
  /** Tokens written to the cache (messages-style: beside the input; priced at the input price, the catalog states none for them). */
  cacheWrite?: number;
  /** The answer's own id (`chatcmpl-…`, `msg_…`), to know its entry in the gateway's log again. */
  id?: string;
}

const whole = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/** The usage of one answer document (or one event's data), merged over what an earlier event said. */
export function usageOf(doc: unknown, before: CallUsage = {}): CallUsage {
  if (typeof doc !== 'object' || doc === null) return before;
  const d = doc as Record<string, unknown>;
  // A messages-style stream's first event holds the message (its model and input) under `message`.
  const message = typeof d.message === 'object' && d.message !== null ? (d.message as Record<string, unknown>) : undefined;
  const response = typeof d.response === 'object' && d.response !== null ? (d.response as Record<string, unknown>) : undefined;
  const holder = message ?? response ?? d;
  const model = typeof holder.model === 'string' ? holder.model : typeof d.model === 'string' ? d.model : undefined;
  const usage = (typeof holder.usage === 'object' && holder.usage !== null ? holder.usage : d.usage) as Record<string, unknown> | undefined;
  const id = typeof holder.id === 'string' && holder.id.length <= 256 ? holder.id : undefined;
  const next: CallUsage = { ...before, ...(model ? { model } : {}), ...(id && before.id === undefined ? { id } : {}) };
  if (!usage || typeof usage !== 'object') return next;
  const details = (usage.prompt_tokens_details ?? usage.input_tokens_details) as Record<string, unknown> | undefined;
  const input = whole(usage.prompt_tokens) ?? whole(usage.input_tokens);
  const output = whole(usage.completion_tokens) ?? whole(usage.output_tokens);
  const inside = whole(details?.cached_tokens);
  const beside = whole(usage.cache_read_input_tokens);
  const cached = inside ?? beside;
  const written = whole(usage.cache_creation_input_tokens);
  return {
    ...next,
    ...(input === undefined ? {} : { input }),
    ...(output === undefined ? {} : { output }),
    ...(cached === undefined ? {} : { cacheRead: cached, ...(inside === undefined ? { cacheBeside: true } : {}) }),
    ...(written === undefined ? {} : { cacheWrite: written }),
  };
}

/** A line of an event stream longer than this is not read for usage (it still passes through). */
const MAX_LINE = 1024 * 1024;

/** The usage a server-sent event stream reports, read from its chunks as they pass. */
export class StreamUsage {
  #usage: CallUsage = {};
  #partial = '';
  readonly #decoder = new TextDecoder();

  push(chunk: Uint8Array): void {
    let text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      this.#line(text.slice(0, newline));
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    this.#partial = text.length > MAX_LINE ? '' : text;
  }

  /** What the stream said, once it ended. */
  result(): CallUsage {
    if (this.#partial) this.#line(this.#partial);
    this.#partial = '';
    return this.#usage;
  }

  #line(line: string): void {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]' || (!data.includes('usage') && !data.includes('model'))) return;
    try {
      this.#usage = usageOf(JSON.parse(data), this.#usage);
    } catch {
      // Not JSON: passed through, not read.
    }
  }
}
