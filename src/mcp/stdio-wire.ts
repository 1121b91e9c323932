// The stdio framing of `tally mcp`: one JSON-RPC message per line on stdin, one per line on stdout.
// It stands in for the SDK's own reader, which ends the connection (and the server, silently) on
// a line over 10 MB and answers nothing to a message it cannot parse. Here every line gets an
// answer or goes on to the server: a line too long is dropped as it streams in and refused with a
// note on stderr; text that is not JSON, or a request whose id is not a string or an integer, is
// answered with JSON-RPC's error and `id: null`; a request other than ping before `initialize` is
// refused, as the protocol's lifecycle says (a 2026-era request carries its own protocol version
// and needs no handshake). The server keeps serving through all of them.
import type { Readable, Writable } from 'node:stream';

type JsonRpcMessage = Record<string, unknown>;

/** The transport interface the SDK's serveStdio drives. */
export interface WireTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  setProtocolVersion?(version: string): void;
}

/** The longest line read: more than any request an agent sends (a tool's arguments are a few kilobytes). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** What the SDK's HTTP transport answers a request before initialize (a server error code of JSON-RPC's range). */
const NOT_INITIALIZED = -32000;

export interface WireOptions {
  maxBytes?: number;
  /** A line for stderr: why a message was refused. */
  note: (line: string) => void;
  /** The SDK's own check of a message's shape (throws on one it does not take). */
  parse: (value: unknown) => unknown;
  /** The `_meta` key a 2026-era request names its protocol version with. */
  versionKey: string;
  /** How long the answers still owed are waited for once the client closed stdin (ms); then the wire closes and what is in flight ends. */
  lingerMs?: number;
}

/** A client that closed stdin has gone, or is going: its answers are waited for this long at most. */
export const LINGER_MS = 3000;

export class StdioWire implements WireTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #options: Required<WireOptions>;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Dropping the rest of a line that grew past the limit (this many bytes so far). */
  #dropping: number | undefined;
  #initialized = false;
  #closed = false;
  /** The requests read and not yet answered (by id: a string, or a number as JSON writes it). */
  readonly #unanswered = new Set<string>();
  /** stdin ended: the wire closes once every request read has its answer. */
  #inputEnded = false;
  #whenDone: () => void = () => undefined;
  /** Whether the client closed stdin (the end of its work, not an interruption). */
  get inputEnded(): boolean {
    return this.#inputEnded;
  }
  /** Resolves when the input has ended and every request read from it is answered (or the wire closed). */
  readonly done = new Promise<void>((resolve) => {
    this.#whenDone = resolve;
  });

  constructor(stdin: Readable, stdout: Writable, options: WireOptions) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#options = { maxBytes: MAX_MESSAGE_BYTES, lingerMs: LINGER_MS, ...options };
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('close', this.#onEnd);
    // A client gone (its end of stdout closed): nothing more can be answered, so the wire closes.
    this.#stdout.on('error', (error: Error) => {
      this.#onError(error);
      void this.close();
    });
  }

  #onError = (error: Error) => this.onerror?.(error);
  // A client that writes its requests and closes stdin (a pipe, a script) still gets the answers
  // that come within a moment; past it the client is taken as gone, the wire closes, and what is
  // in flight (a gateway request included) ends with it: a client's end ends the server.
  #onEnd = () => {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    this.#stdin.off('data', this.#onData);
    if (this.#unanswered.size === 0) void this.close();
    else setTimeout(() => void this.close(), this.#options.lingerMs).unref();
  };

  #onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const newline = data.indexOf(0x0a);
      const part = newline === -1 ? data : data.subarray(0, newline);
      if (this.#dropping !== undefined) this.#dropping += part.length;
      else if (this.#pendingBytes + part.length > this.#options.maxBytes) {
        this.#dropping = this.#pendingBytes + part.length;
        this.#pending = [];
        this.#pendingBytes = 0;
      } else if (part.length > 0) {
        this.#pending.push(part);
        this.#pendingBytes += part.length;
      }
      if (newline === -1) return;
      data = data.subarray(newline + 1);
      if (this.#dropping !== undefined) {
        this.#refuseTooLong(this.#dropping);
        this.#dropping = undefined;
      } else {
        const line = Buffer.concat(this.#pending).toString('utf8');
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#line(line);
      }
    }
  };

  #refuseTooLong(bytes: number): void {
    const limit = size(this.#options.maxBytes);
    this.#options.note(`tally mcp: a message of ${size(bytes)} was refused: messages are read up to ${limit}; the server goes on`);
    this.#answerError(null, INVALID_REQUEST, `the message is longer than ${limit}; it was not read`);
  }

  #line(text: string): void {
    const line = text.replace(/\r$/, '');
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return this.#answerError(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return this.#answerError(null, INVALID_REQUEST, Array.isArray(value) ? 'Invalid Request: batches are not taken; send one message per line' : 'Invalid Request: a message is a JSON object');
    }
    const message = value as JsonRpcMessage;
    const isRequest = typeof message.method === 'string' && 'id' in message;
    if (isRequest && !validId(message.id)) {
      return this.#answerError(null, INVALID_REQUEST, 'Invalid Request: a request id is a string or an integer');
    }
    try {
      this.#options.parse(message);
    } catch {
      return this.#answerError(isRequest ? (message.id as string | number) : null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
    }
    if (isRequest && !this.#initialized) {
      const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
      const modern = meta !== null && typeof meta === 'object' && this.#options.versionKey in meta;
      if (message.method === 'initialize' || modern) this.#initialized = true;
      else if (message.method !== 'ping') {
        return this.#answerError(message.id as string | number, NOT_INITIALIZED, `Server not initialized: send initialize before ${String(message.method)}`);
      }
    }
    if (isRequest) this.#unanswered.add(JSON.stringify(message.id));
    // A cancelled request is never answered (MCP): it is no longer waited for.
    if (message.method === 'notifications/cancelled') this.#answered((message.params as { requestId?: unknown } | undefined)?.requestId);
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  #answerError(id: string | number | null, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: Error) => this.onerror?.(error));
  }

  #answered(id: unknown): void {
    if (id === undefined || !this.#unanswered.delete(JSON.stringify(id))) return;
    if (this.#inputEnded && this.#unanswered.size === 0) void this.close();
  }

  send(message: unknown): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio transport is closed'));
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (this.#stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#stdout.once('drain', () => done());
    }).finally(() => {
      const answer = message as { id?: unknown; method?: unknown };
      if (answer !== null && typeof answer === 'object' && answer.method === undefined) this.#answered(answer.id);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdin.pause();
    this.#whenDone();
    this.onclose?.();
  }

  setProtocolVersion(): void {}
}

/** JSON-RPC as MCP uses it: a request's id is a string or an integer (never null, a fraction, or anything else). */
function validId(id: unknown): boolean {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB` : `${bytes} bytes`;
}
