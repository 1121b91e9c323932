// The one seam between tally and the network. The HTTP core (http.ts) speaks only to a
// Transport; production uses node:http (its parser is built into Node, so a request costs
// no start-up), tests use undici's MockAgent, and a configured proxy uses undici's agent.

import { importExternal } from '../external.js';
import { isLoopback } from '../domain/loopback.js';
import { withAuthorities } from './authorities.js';
import { UsageError } from '../errors.js';
import { UnreadableFile, readStateFile } from '../settings/read-file.js';

import { MAX_CONNECTIONS_PER_ORIGIN, type Transport } from './transport-types.js';

export { MAX_CONNECTIONS_PER_ORIGIN, type Transport, type TransportRequest, type TransportResponse } from './transport-types.js';

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export interface Pool {
  /** Sends a request; its `together` says how many go out at once to an origin. */
  transport: Transport;
  /** Closes every idle connection: a finished command then exits at once. */
  close(): void;
}

/**
 * node:http / node:https over one keep-alive agent per scheme for the whole run: a command's
 * requests to one origin share their connections (one TCP and TLS handshake, not one each), at
 * most MAX_CONNECTIONS_PER_ORIGIN at a time. `ca` adds certificate authorities (TALLY_CA_FILE).
 */
export function nodePool(options: { ca?: string; memory?: import('../settings/protocols.js').ProtocolMemory; connections?: number } = {}): Pool {
  // HTTP/2 where an https origin offers it (h2.ts); its module loads with the first https request.
  let h2: Promise<import('./h2.js').H2Pool> | undefined;
  const h2For = () => (h2 ??= import('./h2.js').then(({ h2Pool }) => h2Pool(options)));
  // The agents are made once, as promises: requests sent together must share one agent (each
  // `await` would otherwise let a second agent be made before the first is stored).
  let http: Promise<import('node:http').Agent> | undefined;
  let https: Promise<import('node:https').Agent> | undefined;
  const made: { destroy(): void }[] = [];
  const settings = { keepAlive: true, maxSockets: options.connections ?? MAX_CONNECTIONS_PER_ORIGIN, scheduling: 'lifo' as const };
  const agentFor = (secure: boolean): Promise<import('node:http').Agent> => {
    if (!secure) {
      http ??= importExternal<typeof import('node:http')>('node:http').then(({ Agent }) => remember(new Agent(settings)));
      return http;
    }
    // node:https pulls in TLS and crypto: loaded only for https URLs.
    https ??= Promise.all([importExternal<typeof import('node:https')>('node:https'), h2For()]).then(async ([{ Agent }, pool]) => {
      const secureContext = await pool.secureContext();
      const agent = new Agent({ ...settings, ...(secureContext ? { secureContext } : {}) });
      // The connection the HTTP/2 probe opened, where the origin chose HTTP/1.1, is used first.
      const open = agent.createConnection.bind(agent);
      agent.createConnection = ((connectOptions: { host?: string; port?: number | string }, callback: unknown) => {
        const host = String(connectOptions.host ?? 'localhost');
        const origin = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${connectOptions.port ?? 443}`).origin;
        return pool.takeSpare(origin) ?? (open as (o: unknown, c: unknown) => unknown)(connectOptions, callback);
      }) as typeof agent.createConnection;
      return remember(agent);
    });
    return https;
  };
  // The sockets that have carried a request: what --debug says of a connection. Node marks a
  // request `reusedSocket` only when a free socket awaits it, not when it waited in the agent's
  // queue for a socket another request freed.
  const carried = new WeakSet<object>();
  const remember = <T extends { destroy(): void }>(agent: T): T => {
    made.push(agent);
    return agent;
  };
  const transport: Transport = async (request) => {
    const secure = request.url.protocol === 'https:';
    if (secure) {
      const answered = await (await h2For()).request(request);
      if (answered) return answered;
    }
    const [{ request: send }, agent] = await Promise.all([
      secure ? importExternal<typeof import('node:https')>('node:https') : importExternal<typeof import('node:http')>('node:http'),
      agentFor(secure),
    ]);
    return new Promise((resolve, reject) => {
      let reused = false;
      const req = send(request.url, { method: request.method, headers: request.headers, signal: request.signal, agent }, (res) => {
        resolve({
          status: res.statusCode ?? 0,
          headers: flattenHeaders(res.headers),
          body: res,
          discard: () => res.destroy(),
          reused,
          protocol: 'http/1.1',
        });
      });
      req.once('socket', (socket) => {
        reused = carried.has(socket);
        carried.add(socket);
      });
      req.on('error', reject);
      req.end(request.body);
    });
  };
  // HTTP/2's streams where an https origin speaks it (known from its first handshake), else HTTP/1.1's connections.
  transport.together = async (origin, togetherOptions) => (origin.protocol === 'https:' ? ((await (await h2For()).together(origin, togetherOptions)) ?? MAX_CONNECTIONS_PER_ORIGIN) : MAX_CONNECTIONS_PER_ORIGIN);
  return {
    transport,
    close: () => {
      // An idle keep-alive socket never holds the process (its agent unrefs it), and destroying a
      // socket makes Node build process.stderr (net.js compares each socket it closes with it:
      // 1-2 ms of a run for a pipe): a run that exits now leaves them to the exit, one that goes on
      // (a server, a test) has them destroyed a turn of the event loop later.
      const agents = made.splice(0);
      if (agents.length > 0) {
        setTimeout(() => {
          for (const agent of agents) agent.destroy();
        }, 0).unref();
      }
      void h2?.then((pool) => pool.close());
    },
  };
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

const MAX_CA_BYTES = 1024 * 1024;

/** The certificate authorities TALLY_CA_FILE names (PEM), read once; a file that cannot be used is exit 2. */
export function readCaFile(env: NodeJS.ProcessEnv): string | undefined {
  const path = env.TALLY_CA_FILE;
  if (!path) return undefined;
  let text: string;
  try {
    // A regular file of at most 1 MB, opened without waiting: a FIFO or /dev/zero is refused, never waited on.
    text = readStateFile(path, MAX_CA_BYTES).toString('utf8');
  } catch (error) {
    throw new UsageError(`TALLY_CA_FILE ${path} cannot be read (${error instanceof UnreadableFile ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)})`);
  }
  if (!/-----BEGIN CERTIFICATE-----/.test(text)) throw new UsageError(`TALLY_CA_FILE ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * The transport for a real run: a keep-alive pool (see nodePool), or undici's proxy agent when
 * HTTPS_PROXY/HTTP_PROXY is set (it honours NO_PROXY), loaded only then; loopback hosts are
 * always reached directly. TALLY_CA_FILE's authorities are trusted on either path.
 */
export async function defaultTransport(env: NodeJS.ProcessEnv, memory?: import('../settings/protocols.js').ProtocolMemory, connections?: number): Promise<Pool> {
  const ca = readCaFile(env);
  const direct = nodePool({ ca, ...(memory ? { memory } : {}), ...(connections ? { connections } : {}) });
  const proxy = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  if (!proxy) return direct;
  let viaProxy: Transport | undefined;
  let agent: import('undici').Dispatcher | undefined;
  const transport: Transport = async (request) => {
    if (isLoopback(request.url.hostname)) return direct.transport(request);
    if (!viaProxy) {
      const { EnvHttpProxyAgent } = await importExternal<typeof import('undici')>('undici');
      // The proxies of this run's environment (not necessarily process.env), and its NO_PROXY.
      agent = new EnvHttpProxyAgent({
        httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? proxy,
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? proxy,
        noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
        ...(ca ? { requestTls: { secureContext: withAuthorities(await importExternal<typeof import('node:tls')>('node:tls'), ca) } } : {}),
      });
      viaProxy = undiciTransport(agent);
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
  // Through the proxy: its agent's connections (HTTP/1.1); loopback goes direct, as its requests do.
  transport.together = async (origin, options) => (isLoopback(origin.hostname) ? direct.transport.together!(origin, options) : MAX_CONNECTIONS_PER_ORIGIN);
  return {
    close: () => {
      direct.close();
      void agent?.destroy();
    },
    transport,
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
