// One request on an HTTP/2 session (api/h2.ts keeps the sessions): a stream when the server's
// SETTINGS_MAX_CONCURRENT_STREAMS leaves one (else it waits for one to end), its answer as the
// transport's, and a stream closed before an answer a failure, never a request left hanging.
import type { ClientHttp2Session } from 'node:http2';
import { untilAborted } from '../abortable.js';
import type { TransportRequest, TransportResponse } from './transport-types.js';

/** Headers HTTP/2 forbids (connection-specific): never sent on a stream. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

export interface Session {
  session: ClientHttp2Session;
  /** Streams open now, and those waiting for one to end. */
  active: number;
  waiting: (() => void)[];
  /** Whether the session has carried a stream (what --debug says of a connection). */
  used: boolean;
  /** Settles when the server's SETTINGS came (its stream limit with them), or the session ended. */
  settled: Promise<void>;
  /** Whether the server's SETTINGS have come. */
  settingsCame: boolean;
}

/** Sends `request` on the session of `entry`, as the file's head says. */
export async function sendOnSession(entry: Session, request: TransportRequest): Promise<TransportResponse> {
  const limit = Math.min(entry.session.remoteSettings?.maxConcurrentStreams ?? 100, 1000);
  while (entry.active >= limit) {
    let wake: (() => void) | undefined;
    try {
      await untilAborted(new Promise<void>((resolve) => entry.waiting.push((wake = resolve))), request.signal);
    } catch (error) {
      // A request that gave up leaves the queue: the stream that ends next wakes one still waiting.
      entry.waiting = entry.waiting.filter((w) => w !== wake);
      throw error;
    }
  }
  entry.active++;
  entry.session.ref();
  const reused = entry.used;
  entry.used = true;
  const done = () => {
    entry.active--;
    entry.waiting.shift()?.();
    if (entry.active === 0) entry.session.unref();
  };
  const headers: Record<string, string> = { ':method': request.method, ':path': `${request.url.pathname}${request.url.search}` };
  for (const [name, value] of Object.entries(request.headers)) if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  return new Promise((resolve, reject) => {
    let stream;
    try {
      stream = entry.session.request(headers, { signal: request.signal, endStream: request.body === undefined });
    } catch (error) {
      done();
      reject(error);
      return;
    }
    let answered = false;
    stream.once('close', () => {
      done();
      // Closed (reset) before an answer: a failure, never a request left hanging (nothing else would keep the run waiting for it).
      if (!answered) reject(Object.assign(new Error(`the server closed the HTTP/2 stream without an answer (${stream.rstCode === 7 ? 'REFUSED_STREAM' : `code ${stream.rstCode ?? 'none'}`})`), { code: 'ECONNRESET' }));
    });
    stream.once('error', reject);
    stream.once('response', (raw) => {
      answered = true;
      const flat: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(raw)) if (!name.startsWith(':')) flat[name] = Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
      resolve({ status: Number(raw[':status'] ?? 0), headers: flat, body: stream, discard: () => stream.close(), reused, protocol: 'h2' });
    });
    if (request.body !== undefined) stream.end(request.body);
  });
}
