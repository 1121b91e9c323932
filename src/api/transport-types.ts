// What a transport sends and gets back: shared by the HTTP/1.1 pool (transport.ts) and the HTTP/2
// one (h2.ts), which do not import each other.

export interface TransportRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
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
