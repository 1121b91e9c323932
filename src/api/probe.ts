// What `tally doctor` asks of the network: can the host's name be resolved, a connection opened,
// a TLS session started (and through which proxy), and what the balance endpoint answers with
// which headers (the gateway's clock, the rate-limit headroom).
import type { HttpClient } from './http.js';
import { importExternal } from '../external.js';
import { withAuthorities } from './authorities.js';

export interface ReachProbe {
  address?: string;
  dns?: string;
  tcp?: string;
  tls?: string;
  /** The error of the first step that failed. */
  failed?: { step: 'dns' | 'tcp' | 'tls'; message: string };
}

/** Resolves, connects and (for https) shakes hands with the base URL's host, each step within `timeoutMs`. */
export async function probeReach(url: URL, timeoutMs: number, ca?: string): Promise<ReachProbe> {
  const [{ lookup }, net, tls] = await Promise.all([
    importExternal<typeof import('node:dns/promises')>('node:dns/promises'),
    importExternal<typeof import('node:net')>('node:net'),
    importExternal<typeof import('node:tls')>('node:tls'),
  ]);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const probe: ReachProbe = {};
  const started = Date.now();
  try {
    const found = await lookup(host);
    probe.address = found.address;
    probe.dns = `${host} is ${found.address} (${Date.now() - started} ms)`;
  } catch (error) {
    return { failed: { step: 'dns', message: `cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` } };
  }
  const connect = (secure: boolean) =>
    new Promise<string>((resolve, reject) => {
      const at = Date.now();
      const socket = secure
        ? // TALLY_CA_FILE's authorities as every command trusts them; a name to check only where the host is one (an address as the server name is deprecated, RFC 6066).
          tls.connect({ host: probe.address, port, ...(net.isIP(host) ? {} : { servername: host }), ...(ca ? { secureContext: withAuthorities(tls, ca) } : {}), timeout: timeoutMs })
        : net.connect({ host: probe.address, port, timeout: timeoutMs });
      const done = (error?: Error) => {
        // The protocol is read before the socket is gone (a destroyed socket has none).
        const said = secure ? `TLS ${(socket as import('node:tls').TLSSocket).getProtocol?.() ?? ''} with ${host} (${Date.now() - at} ms)`.replace('  ', ' ') : `connected to ${host}:${port} (${Date.now() - at} ms)`;
        socket.destroy();
        if (error) reject(error);
        else resolve(said);
      };
      socket.once(secure ? 'secureConnect' : 'connect', () => done());
      socket.once('timeout', () => done(new Error(`no answer within ${timeoutMs} ms`)));
      socket.once('error', (error) => done(error));
    });
  try {
    probe.tcp = await connect(false);
  } catch (error) {
    return { ...probe, failed: { step: 'tcp', message: `cannot connect to ${host}:${port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` } };
  }
  if (url.protocol === 'https:') {
    try {
      probe.tls = await connect(true);
    } catch (error) {
      return { ...probe, failed: { step: 'tls', message: `TLS with ${host} failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` } };
    }
  }
  return probe;
}

export interface BalanceProbe {
  status: number;
  headers: Record<string, string | undefined>;
}

/** One balance request, for its status and headers (Date, X-RateLimit-*); errors as the client types them. */
export async function probeBalance(client: HttpClient): Promise<BalanceProbe> {
  const { status, headers } = await client.requestJson({ path: '/v1/open/balance', family: 'native', auth: 'any' });
  return { status, headers };
}
