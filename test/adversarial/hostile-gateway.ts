// A hostile gateway for the adversarial suite: a real HTTP server on 127.0.0.1 (port 0) whose
// answers are named scenarios. Each scenario maps a path to what to send back; everything the
// built binary asks is recorded. The bodies are written by hand, byte for byte, so that numbers,
// duplicate keys, control characters and encodings reach tally exactly as a hostile server
// would send them.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** A string (sent as UTF-8), raw bytes, or a function of the request. */
  body: string | Buffer;
  /**
   * Header lines written byte for byte (latin1), past Node's own checks: what a hostile server
   * can send that a well-behaved one cannot (control and C1 bytes in header values).
   */
  rawHeaders?: string;
}

export type Route = HostileAnswer | ((request: { url: URL; headers: IncomingMessage['headers']; body: string; count: number }) => HostileAnswer);

export interface Scenario {
  name: string;
  routes: Record<string, Route>;
}

export interface HostileGateway {
  baseUrl: string;
  requests: { method: string; url: URL; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export async function startHostile(scenario: Scenario): Promise<HostileGateway> {
  const requests: HostileGateway['requests'] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://hostile');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? 'GET', url, headers: req.headers });
      const route = scenario.routes[url.pathname];
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error": {"message": "no such route in this scenario"}}');
        return;
      }
      const count = (counts.get(url.pathname) ?? 0) + 1;
      counts.set(url.pathname, count);
      const answer = typeof route === 'function' ? route({ url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), count }) : route;
      const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
      if (answer.rawHeaders !== undefined) {
        const head = `HTTP/1.1 ${answer.status ?? 200} X\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n${answer.rawHeaders}\r\n`;
        res.socket!.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-length': String(body.length), ...answer.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A balance record, with parts replaced (written by hand: exact bytes). */
export function balanceBody(parts: { currency?: string; balance?: string; limit?: string; used?: string; extra?: string } = {}): string {
  const text = (value: string | undefined, fallback: string) => value ?? fallback;
  return `{"currency": ${text(parts.currency, '"CNY"')}, "balance": ${text(parts.balance, '"100.00000000"')}, "lifetime_spend": "5.00000000", "plan": {"has_active_plan": false}, "api_key": {"name": "k", "prefix": "gw-sk", "daily_cost_limit": ${text(parts.limit, '"50.00000000"')}, "daily_cost_used": ${text(parts.used, '"1.00000000"')}}${parts.extra ?? ''}}`;
}

/** Any control, C1, bidirectional or zero-width character a terminal would act on (a CR ending a CSV line aside). */
export const TERMINAL_CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\r(?!\n)|\u001b(?!\[[0-9;]*m)/;

/** Starts a scenario and gives a runner of tally commands against it (a fresh state folder, TZ=UTC, a fixed clock). */
export async function againstHostile(scenario: Scenario, now: number, gateways: HostileGateway[]) {
  const { KEY, freshState, runCommand } = await import('../helpers.js');
  const gateway = await startHostile(scenario);
  gateways.push(gateway);
  const env = { TALLY_BASE_URL: gateway.baseUrl, TALLY_API_KEY: KEY, TZ: 'UTC', TALLY_CONFIG_DIR: freshState() };
  const run = (argv: string[], extra: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) => runCommand(argv, { env: { ...env, ...extra.env }, now: () => now, tty: extra.tty });
  return { gateway, env, run };
}
