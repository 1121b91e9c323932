// The sandbox gateway: a spec-faithful fake of the whole read-only interface with seeded data.
// This file routes requests and authenticates them; each family lives in its own module
// (native.ts, compat.ts, catalog.ts, device.ts), as do faults.ts and limits.ts. Tests drive it
// in-process, give it a clock, and inject faults.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CATALOG_VERSION, altModelList, catalogBody, modelList } from './catalog.js';
import { CompatFamily, type CompatWrap } from './compat.js';
import { DeviceFlow } from './device.js';
import { type Fault, applyFault } from './faults.js';
import { familyError, familyOf } from './families.js';
import { readText, send, sendJson } from './http.js';
import { LiveCalls, completion, message } from './live.js';
import { guarded, hardenServer, requestUrl } from '../serving.js';
import { RateLimits } from './limits.js';
import { type BucketNaming, NativeFamily } from './native.js';
import { ACCOUNTS, CATALOG, type Call, DEMO_KEY, KEYS, type SandboxAccount, type SandboxKey, accountOf, seedCalls } from './seed.js';

export type { BucketNaming } from './native.js';
export type { Fault, FaultKind } from './faults.js';

export interface SandboxOptions {
  port?: number;
  /** The gateway's clock (ms since the epoch): seeded history ends at its "now". */
  now?: () => number;
  naming?: BucketNaming;
  /** Another seeded history of the same world (0, the default, is the one every example shows). */
  seed?: number;
  /** Offset of the day grid from UTC, in minutes (480 = days start at 16:00 UTC). */
  dayOffsetMinutes?: number;
  /** Requests per window: native and compatible account endpoints, and the model lists. */
  accountLimit?: number;
  modelsLimit?: number;
  rateWindowMs?: number;
  /** Lifetime of the usage cache. */
  cacheMs?: number;
  /** Device flow: polling interval the gateway asks for, and code lifetime, in seconds. */
  deviceInterval?: number;
  deviceExpiresIn?: number;
  /** Device flow: approve codes by themselves after this many polls (undefined: wait for approve()). */
  autoApproveAfterPolls?: number;
  accessTokenLifetime?: number;
  /** Pad the price catalog with generated models up to this many (for load tests). */
  catalogSize?: number;
  /** Serve a new pricing_version with every catalog request (a catalog that keeps changing). */
  catalogChurn?: boolean;
  /** Serve the previous catalog version (other prices for a few models) to the first N catalog requests, the current one after. */
  repriceAfter?: number;
  /** How the token-usage record is wrapped (default `code-true`, as real gateways send it). */
  compatWrap?: CompatWrap;
  /** The token record's amounts: credits with a currency (default), or raw quota units with none. */
  compatUnits?: 'stated' | 'raw';
  /** Answer 404 on /api/usage/token/, as an older gateway of the family does. */
  compatNoToken?: boolean;
  /** Answer 404 on /v1/open/logs: a gateway without a per-call log (tally run follows the counters). */
  noCallLog?: boolean;
  /** Charge some calls off the catalog (what `tally audit` finds): see OFF_CATALOG in seed.ts. */
  offCatalog?: boolean;
  /** Report cache-read and reasoning tokens (and bill cache reads at the cache price): see TOKEN_CLASSES in seed.ts. */
  tokenClasses?: boolean;
  /** Serve this many generated log entries instead of the seeded calls (for load tests). */
  logSize?: number;
  /** Serve HTTPS with this key and certificate (PEM), as `tally sandbox --tls` does: HTTP/2 and HTTP/1.1, the client's choice (ALPN). */
  tls?: { key: string; cert: string };
  /** With tls: offer HTTP/1.1 only (a front end that does not speak HTTP/2). */
  http1Only?: boolean;
  /** Make a call every this many milliseconds of the clock (`tally sandbox --live`): the log grows. */
  liveEveryMs?: number;
  /** Book each call in the per-call log this many seconds late, as real gateways do (`--log-lag`); the balance's counters book it at once. */
  logLagSeconds?: number;
}

/** A clock that shows `startMs` now and runs on from there (`tally sandbox --now`, tests). */
export function clockStartingAt(startMs: number, real: () => number = Date.now): () => number {
  const origin = real();
  return () => startMs + (real() - origin);
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Form fields of a POST (the device flow). */
  form?: Record<string, string>;
}

interface Principal {
  kind: 'api-key' | 'device-token';
  key: SandboxKey | null;
  /** The account it spends from; its rate limits are the account's user's. */
  account: SandboxAccount;
}

export class Sandbox {
  readonly demoKey = DEMO_KEY;
  readonly limitedKey = KEYS[1]!.secret;
  readonly unlimitedKey = KEYS[2]!.secret;
  /** Every key of the sandbox's world, with its account, limits and quota. */
  readonly keys = KEYS;
  readonly requests: LoggedRequest[] = [];
  readonly faults: Fault[] = [];
  /** Overrides for tests: replace a response body for a path (e.g. a 20-digit number). */
  readonly overrides = new Map<string, () => { status?: number; body: string; headers?: Record<string, string> }>();
  readonly device: DeviceFlow;
  readonly now: () => number;
  readonly #server: Server;
  readonly #scheme: 'http' | 'https';
  readonly #sockets = new Set<Socket>();
  readonly #limits: RateLimits;
  readonly #native: NativeFamily;
  readonly #compat: CompatFamily;
  readonly #catalogSize: number;
  readonly #catalogChurn: boolean;
  readonly #repriceAfter: number;
  readonly #noCallLog: boolean;
  #catalogRequests = 0;
  #previousCatalogBytes?: Buffer;
  #calls?: Call[];
  readonly #live: LiveCalls;
  #baseUrl = '';
  /** The catalog's bytes, built once: like a real gateway's cached catalog, it is served without re-encoding 3 MB per request. */
  #catalogBytes?: Buffer;
  #catalogServed = 0;

  constructor(options: SandboxOptions = {}) {
    this.now = options.now ?? Date.now;
    this.#noCallLog = options.noCallLog === true;
    const dayOffsetMinutes = options.dayOffsetMinutes ?? 0;
    this.#limits = new RateLimits({ account: options.accountLimit ?? 120, models: options.modelsLimit ?? 240 }, options.rateWindowMs ?? 60_000, this.now);
    // The history is seeded on first use, up to the clock's now at that moment.
    const calls = () => (this.#calls ??= seedCalls(Math.floor(this.now() / 1000), dayOffsetMinutes, options.seed ?? 0, { offCatalog: options.offCatalog === true, tokenClasses: options.tokenClasses === true }));
    this.#live = new LiveCalls(calls, { now: this.now, everyMs: options.liveEveryMs, seed: options.seed });
    this.#native = new NativeFamily({ now: this.now, naming: options.naming ?? 'compact', dayOffsetMinutes, cacheMs: options.cacheMs ?? 30_000, logSize: options.logSize, tokenClasses: options.tokenClasses === true, logLagSeconds: options.logLagSeconds ?? 0 }, calls);
    this.#compat = new CompatFamily(
      { wrap: options.compatWrap ?? 'code-true', units: options.compatUnits ?? 'stated', tokenEndpoint: !options.compatNoToken },
      (account, secret) => this.#native.spend(secret === undefined ? (c) => c.account === account.id : (c) => c.key === secret),
    );
    this.device = new DeviceFlow({
      interval: options.deviceInterval ?? 5,
      expiresIn: options.deviceExpiresIn ?? 600,
      autoApproveAfterPolls: options.autoApproveAfterPolls,
      accessTokenLifetime: options.accessTokenLifetime ?? 3600,
      now: this.now,
      baseUrl: () => this.#baseUrl,
    });
    this.#catalogSize = options.catalogSize ?? CATALOG.length;
    this.#catalogChurn = options.catalogChurn ?? false;
    this.#repriceAfter = options.repriceAfter ?? 0;
    // Any request, however malformed, gets a status code and the sandbox keeps serving.
    const handle = guarded((req: IncomingMessage, res: ServerResponse) => this.#handle(req, res));
    this.#scheme = options.tls ? 'https' : 'http';
    // node:https or node:http2 (with TLS behind them) load only for a TLS sandbox: HTTP/2 and HTTP/1.1 offered, the client's choice.
    this.#server = !options.tls
      ? createServer(handle)
      : options.http1Only
        ? (process.getBuiltinModule('node:https').createServer({ key: options.tls.key, cert: options.tls.cert }, handle) as unknown as Server)
        : (process.getBuiltinModule('node:http2').createSecureServer({ key: options.tls.key, cert: options.tls.cert, allowHTTP1: true }, handle as never) as unknown as Server);
    hardenServer(this.#server);
    this.#server.on('connection', (socket) => {
      // As a real front end does: small frames go out at once (no Nagle delay behind an unacknowledged one).
      socket.setNoDelay?.(true);
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** The limits in force (what a rate-limit fault reports). */
  get limits(): { account: number; models: number } {
    return this.#limits.limits;
  }

  listen(port = 0): Promise<this> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        const { port: bound } = this.#server.address() as AddressInfo;
        this.#baseUrl = `${this.#scheme}://127.0.0.1:${bound}`;
        resolve(this);
      });
    });
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** Requests made to a path (for asserting counts and what was sent). */
  requestsTo(path: string): LoggedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req);
    if (!url) return sendJson(res, 400, { error: { type: 'invalid_request_error', message: 'not a request target' } });
    const path = url.pathname;
    const logged: LoggedRequest = { method: req.method ?? 'GET', path, query: Object.fromEntries(url.searchParams), headers: { ...req.headers } };
    // Every answer follows the gateway's clock, its Date header included (--now moves both).
    res.setHeader('Date', new Date(this.now()).toUTCString());
    this.requests.push(logged);
    const text = req.method === 'POST' ? await readText(req) : '';
    const form = new URLSearchParams(path.startsWith('/oauth/') ? text : '');
    if (req.method === 'POST') logged.form = Object.fromEntries(form);
    try {
      // Live calls due by the clock are in the log before anything is answered.
      this.#live.advance();
      if (await applyFault(this.faults, path, res, this.#limits.limits)) return;
      const override = this.overrides.get(path);
      if (override) {
        const { status = 200, body, headers } = override();
        return send(res, status, body, 'application/json', headers);
      }
      await this.#route(req, res, url, form, text);
    } catch (error) {
      const { status, body } = familyError(familyOf(path), `sandbox failure: ${(error as Error).message}`);
      sendJson(res, status, body);
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse, url: URL, form: URLSearchParams, text: string): Promise<void> {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/oauth/device/code') return this.device.deviceCode(res, form);
    if (method === 'POST' && path === '/oauth/token') return this.device.token(res, form);
    if (path === '/device') return this.device.page(res, url, method === 'POST' ? new URLSearchParams(text) : undefined);
    if (method === 'POST' && path === '/v1/chat/completions') return this.#complete(req, res, text, completion);
    if (method === 'POST' && path === '/v1/messages') return this.#complete(req, res, text, message);
    if (method !== 'GET') return sendJson(res, 405, { error: { type: 'invalid_request_error', message: `${method} is not allowed here` } });
    if (path === '/api/pricing') return this.#pricing(res);
    if (path === '/api/usage/token') {
      // Registered with the slash; the bare path redirects there, query and all.
      res.writeHead(301, { location: `/api/usage/token/${url.search}` });
      return void res.end();
    }
    const family = familyOf(path);
    if (!family) return sendJson(res, 404, { error: { type: 'not_found', message: `no route for ${path}` } });

    const principal = this.#authenticate(req);
    if (!principal) {
      return sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'invalid or missing credential' } });
    }
    if (principal.kind === 'device-token' && path !== '/v1/open/balance') {
      return sendJson(res, 401, { error: { type: 'authentication_error', code: 'api_key_required', message: 'this endpoint requires an API key' } });
    }
    if (!this.#limits.admit(res, principal.account.id, family === 'models' ? 'models' : 'account')) return;

    const key = principal.key;
    switch (path) {
      case '/v1/open/balance': return sendJson(res, 200, this.#native.balance(principal.account, key));
      case '/v1/open/usage': return this.#native.usage(res, url, key!);
      case '/v1/open/usage/models': return this.#native.usageByModel(res, url, key!);
      case '/v1/open/logs':
        if (this.#noCallLog) return sendJson(res, 404, { error: { type: 'not_found_error', code: 'not_found', message: 'no such endpoint' } });
        return this.#native.logs(res, url, key!);
      case '/v1/models': return sendJson(res, 200, modelList(key!));
      case '/alt/v1/models': return sendJson(res, 200, altModelList(key!));
      case '/dashboard/billing/subscription':
      case '/v1/dashboard/billing/subscription': return send(res, 200, this.#compat.subscription(principal.account, key!));
      case '/dashboard/billing/usage':
      case '/v1/dashboard/billing/usage': return send(res, 200, this.#compat.usage(principal.account, key!));
      case '/api/usage/token/': {
        const record = this.#compat.token(principal.account, key!);
        if (record === undefined) return sendJson(res, 404, { error: { message: `Invalid URL (GET ${path})`, type: 'invalid_request_error', param: '', code: '' } });
        return send(res, 200, record);
      }
      default: return sendJson(res, 404, { error: { type: 'not_found', message: `no route for ${path}` } });
    }
  }

  /** The generation stand-in: a call billed to the key that asks, in its log at once. */
  #complete(req: IncomingMessage, res: ServerResponse, text: string, answerWith: typeof completion): void {
    const principal = this.#authenticate(req);
    if (!principal?.key) return sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'invalid or missing API key' } });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendJson(res, 400, { error: { type: 'invalid_request_error', code: 'invalid_json', message: 'the body is not JSON' } });
    }
    const answer = answerWith(this.#live, principal.key, body);
    const named: Record<string, string> = answer.requestId ? { 'x-request-id': answer.requestId } : {};
    if (!answer.stream) return sendJson(res, answer.status, answer.body, named);
    // Streamed event by event, a moment apart, as an upstream model answers.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...named });
    const events = [...answer.stream];
    const next = () => {
      const event = events.shift();
      if (event === undefined || res.destroyed) return void res.end();
      res.write(event);
      setTimeout(next, 50).unref();
    };
    next();
  }

  #pricing(res: ServerResponse): void {
    if (++this.#catalogRequests <= this.#repriceAfter) {
      this.#previousCatalogBytes ??= Buffer.from(JSON.stringify(catalogBody(this.#catalogSize, true)));
      return send(res, 200, this.#previousCatalogBytes);
    }
    this.#catalogBytes ??= Buffer.from(JSON.stringify(catalogBody(this.#catalogSize)));
    if (!this.#catalogChurn) return send(res, 200, this.#catalogBytes);
    // The version is near the start: splice a new one in without re-encoding the rest.
    const at = this.#catalogBytes.indexOf(CATALOG_VERSION) + CATALOG_VERSION.length;
    send(res, 200, Buffer.concat([this.#catalogBytes.subarray(0, at), Buffer.from(`.${++this.#catalogServed}`), this.#catalogBytes.subarray(at)]));
  }

  #authenticate(req: IncomingMessage): Principal | undefined {
    const header = req.headers.authorization;
    const bearer = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : undefined;
    const apiKey = req.headers['x-api-key'];
    const secret = bearer ?? (typeof apiKey === 'string' ? apiKey : undefined);
    if (!secret) return undefined;
    const key = KEYS.find((k) => k.secret === secret);
    if (key) return { kind: 'api-key', key, account: accountOf(key) };
    if (this.device.accepts(secret)) return { kind: 'device-token', key: null, account: ACCOUNTS[0]! };
    return undefined;
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return new Sandbox(options).listen(options.port ?? 0);
}
