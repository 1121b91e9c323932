// The one seam between tally and the network. The HTTP core (http.ts) speaks only to a
// Transport; production uses node:http (its parser is built into Node, so a request costs
// no start-up), tests use undici's MockAgent, and a configured proxy uses undici's agent.

import { importExternal } from '../external.js';
import { isLoopback } from '../domain/loopback.js';

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
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** node:http / node:https, no keep-alive so that a finished command exits at once. */
export async function nodeTransport(request: TransportRequest): Promise<TransportResponse> {
  // node:https pulls in TLS and crypto: load it only for https URLs.
  const { request: send } = request.url.protocol === 'https:'
    ? await importExternal<typeof import('node:https')>('node:https')
    : await importExternal<typeof import('node:http')>('node:http');
  return new Promise((resolve, reject) => {
    const req = send(
      request.url,
      { method: request.method, headers: request.headers, signal: request.signal, agent: false },
      (res) => {
        // The connection is not reused (no keep-alive): once the body is in, close it now
        // instead of waiting for the server, so a finished command exits at once.
        res.once('end', () => res.socket?.destroy());
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: res,
          discard: () => res.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** A Transport over an undici Dispatcher (MockAgent in tests, a proxy agent in production). */
export function undiciTransport(dispatcher: import('undici').Dispatcher): Transport {
  return async (request) => {
    const { request: undiciRequest } = await importExternal<typeof import('undici')>('undici');
    const res = await undiciRequest(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      dispatcher,
    });
    return {
      status: res.statusCode,
      headers: flattenHeaders(res.headers as Record<string, string | string[] | undefined>),
      body: res.body,
      discard: () => res.body.destroy(),
    };
  };
}

/**
 * The transport for a real run: undici's proxy agent when HTTPS_PROXY/HTTP_PROXY is set
 * (it honours NO_PROXY), loaded only then; loopback hosts are always reached directly.
 */
export async function defaultTransport(env: NodeJS.ProcessEnv): Promise<Transport> {
  const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  if (!proxy) return nodeTransport;
  let viaProxy: Transport | undefined;
  return async (request) => {
    if (isLoopback(request.url.hostname)) return nodeTransport(request);
    if (!viaProxy) {
      const { EnvHttpProxyAgent } = await importExternal<typeof import('undici')>('undici');
      // The proxies of this run's environment (not necessarily process.env), and its NO_PROXY.
      viaProxy = undiciTransport(
        new EnvHttpProxyAgent({
          httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? proxy,
          httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? proxy,
          noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
        }),
      );
    }
    try {
      return await viaProxy(request);
    } catch (error) {
      // Through a proxy, tally connects to the proxy only: a failure to connect is the proxy's,
      // and is said so (never blamed on the gateway). Its address, never its credentials.
      if (error && typeof error === 'object') Object.assign(error, { proxy: proxyAddress(proxy) });
      throw error;
    }
  };
}

/** `host:port` of a proxy URL (no user name or password), for messages. */
function proxyAddress(text: string): string {
  try {
    const url = new URL(text);
    return url.host;
  } catch {
    return 'the proxy';
  }
}
