// What a transport sends and gets back: shared by the HTTP/1.1 pool (transport.ts) and the HTTP/2
// one (h2.ts), which do not import each other.

export interface TransportRequest {
  /** GET and POST for tally's own requests; a request the proxy forwards keeps its client's method. */
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** Text for tally's own requests; the bytes of a request the proxy forwards, as its client sent them. */
  body?: string | Uint8Array;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  body: AsyncIterable<Uint8Array>;
  /** Stops reading the body and frees the connection. */
  discard(): void;
  /** Whether the request went over a connection an earlier request opened (keep-alive); undefined when unknown. */
  reused?: boolean;
  /** The protocol it went over, where the transport knows it. */
  protocol?: 'h2' | 'http/1.1';
}

/** Requests to one origin that go out together over HTTP/1.1, at most (more wait for a free connection). */
export const MAX_CONNECTIONS_PER_ORIGIN = 4;

/** Requests to one origin that go out together over HTTP/2, at most (below the server's own stream limit, where it says one). */
export const MAX_STREAMS_TOGETHER = 64;

/**
 * The streams counted on over an HTTP/2 session whose SETTINGS have not come yet, by a caller that
 * does not wait for them (they arrive a round trip after the handshake, with the first answers):
 * RFC 9113 recommends servers allow no fewer than 100; a lower limit queues the rest, never refuses them.
 */
export const STREAMS_BEFORE_SETTINGS = 10;

/** `settings: false`: do not wait for an HTTP/2 server's SETTINGS (STREAMS_BEFORE_SETTINGS until they come). */
export interface TogetherOptions {
  settings?: boolean;
}

export interface Transport {
  (request: TransportRequest): Promise<TransportResponse>;
  /**
   * How many requests to `origin` go out at once: HTTP/2's streams once a connection said h2 (the
   * first run learns it with its first TLS handshake, before any answer), else HTTP/1.1's
   * connections. Absent: MAX_CONNECTIONS_PER_ORIGIN.
   */
  together?(origin: URL, options?: TogetherOptions): Promise<number>;
}
