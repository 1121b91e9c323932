// The sandbox gateway: a spec-faithful fake of the whole read-only interface (both families,
// the model lists, the catalog, the device flow), its limits, its error shapes and its
// caching, with seeded data. Tests drive it in-process and inject faults.
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Decimal, ZERO } from '../domain/money.js';
import {
  CATALOG,
  type Call,
  DEMO_KEY,
  KEYS,
  type SandboxKey,
  TOP_UPS,
  VENDORS,
  endpointTypes,
  seedCalls,
} from './seed.js';

/** How the sandbox names the fields of a usage bucket (the spec does not publish them). */
export type BucketNaming = 'compact' | 'detailed' | 'iso';

export type FaultKind =
  | 'draining'
  | 'rate-limit'
  | 'error-200'
  | 'success-false'
  | 'unsupported'
  | 'html'
  | 'truncated'
  | 'hang'
  | 'stall'
  | 'reset'
  | 'slow'
  | 'status';

export interface Fault {
  kind: FaultKind;
  /** How many requests it affects (default 1; Infinity for all). */
  times?: number;
  /** Only requests whose path starts with this. */
  path?: string;
  /** For `slow`: delay before a normal answer. */
  delayMs?: number;
  /** For `status`: what to answer. */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
}

const CATALOG_VERSION = 'sbx-2026.11.3';

export interface SandboxOptions {
  port?: number;
  /** Clock of the gateway (ms since epoch). */
  now?: () => number;
  naming?: BucketNaming;
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
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Form fields of a POST (the device flow). */
  form?: Record<string, string>;
}

interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  expiresAt: number;
  interval: number;
  lastPoll: number;
  polls: number;
  state: 'pending' | 'approved' | 'denied';
  slowDownNext: number;
}

interface Principal {
  kind: 'api-key' | 'device-token';
  key: SandboxKey | null;
  user: string;
}

const DAY = 86_400;
const MAX_WINDOW = 92 * DAY;

export class Sandbox {
  readonly demoKey = DEMO_KEY;
  readonly limitedKey = KEYS[1]!.secret;
  readonly requests: LoggedRequest[] = [];
  readonly faults: Fault[] = [];
  options: Required<Omit<SandboxOptions, 'autoApproveAfterPolls' | 'port'>> & { autoApproveAfterPolls?: number };
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #calls: Call[];
  #baseUrl = '';
  readonly #windows = new Map<string, { start: number; count: number }>();
  /** Usage answers by window, serialised once (the gateway's cache). */
  readonly #cache = new Map<string, { body: string; expires: number }>();
  readonly #grants = new Map<string, DeviceGrant>();
  readonly #deviceTokens = new Map<string, { expiresAt: number; refresh: string }>();
  readonly #refreshTokens = new Map<string, string>();
  /** Overrides for tests: replace a response body for a path (e.g. a 20-digit number). */
  readonly overrides = new Map<string, () => { status?: number; body: string }>();
  /** The catalog's bytes, built once: like a real gateway's cached catalog, it is served without re-encoding 3 MB per request. */
  #catalogBytes?: Buffer;
  #catalogServed = 0;

  constructor(options: SandboxOptions = {}) {
    this.options = {
      now: options.now ?? Date.now,
      naming: options.naming ?? 'compact',
      dayOffsetMinutes: options.dayOffsetMinutes ?? 0,
      accountLimit: options.accountLimit ?? 120,
      modelsLimit: options.modelsLimit ?? 240,
      rateWindowMs: options.rateWindowMs ?? 60_000,
      cacheMs: options.cacheMs ?? 30_000,
      deviceInterval: options.deviceInterval ?? 5,
      deviceExpiresIn: options.deviceExpiresIn ?? 600,
      autoApproveAfterPolls: options.autoApproveAfterPolls,
      accessTokenLifetime: options.accessTokenLifetime ?? 3600,
      catalogSize: options.catalogSize ?? CATALOG.length,
      catalogChurn: options.catalogChurn ?? false,
    };
    this.#calls = seedCalls(Math.floor(this.options.now() / 1000), this.options.dayOffsetMinutes);
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  listen(port = 0): Promise<this> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        const { port: bound } = this.#server.address() as AddressInfo;
        this.#baseUrl = `http://127.0.0.1:${bound}`;
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

  /** Device flow controls for tests and the approval page. */
  approve(userCode: string): boolean {
    return this.#setGrant(userCode, 'approved');
  }

  deny(userCode: string): boolean {
    return this.#setGrant(userCode, 'denied');
  }

  /** Makes the next polls of a pending code answer slow_down. */
  slowDown(userCode: string, times = 1): void {
    for (const grant of this.#grants.values()) if (grant.userCode === userCode) grant.slowDownNext += times;
  }

  pendingUserCodes(): string[] {
    return [...this.#grants.values()].filter((g) => g.state === 'pending').map((g) => g.userCode);
  }

  /** Expires every device access token (to exercise refresh). */
  expireDeviceTokens(): void {
    for (const token of this.#deviceTokens.values()) token.expiresAt = 0;
  }

  #setGrant(userCode: string, state: DeviceGrant['state']): boolean {
    for (const grant of this.#grants.values()) {
      if (grant.userCode === userCode.toUpperCase() && grant.state === 'pending') {
        grant.state = state;
        return true;
      }
    }
    return false;
  }

  #nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const logged: LoggedRequest = { method: req.method ?? 'GET', path, query: Object.fromEntries(url.searchParams), headers: { ...req.headers } };
    this.requests.push(logged);
    const body = req.method === 'POST' ? await readForm(req) : new URLSearchParams();
    if (req.method === 'POST') logged.form = Object.fromEntries(body);
    try {
      if (await this.#fault(path, res)) return;
      const override = this.overrides.get(path);
      if (override) {
        const { status = 200, body: text } = override();
        return send(res, status, text);
      }
      await this.#route(req, res, url, body);
    } catch (error) {
      sendJson(res, 500, { error: `sandbox failure: ${(error as Error).message}` });
    }
  }

  async #fault(path: string, res: ServerResponse): Promise<boolean> {
    const index = this.faults.findIndex((f) => !f.path || path.startsWith(f.path));
    if (index < 0) return false;
    const fault = this.faults[index]!;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    switch (fault.kind) {
      case 'draining': sendJson(res, 503, { error: 'instance draining' }); return true;
      case 'rate-limit':
        sendJson(res, 429, path.endsWith('/models') ? { error: 'rate limit exceeded', scope: 'user' } : { error: { type: 'rate_limit_error', message: 'rate limit exceeded' } }, {
          'X-RateLimit-Limit': String(path.endsWith('/models') ? this.options.modelsLimit : this.options.accountLimit),
          'X-RateLimit-Remaining': '-3',
          ...fault.headers,
        });
        return true;
      case 'error-200': sendJson(res, 200, { error: { type: 'upstream_error', code: 'billing_unavailable', message: 'billing backend unavailable' } }); return true;
      case 'success-false': sendJson(res, 200, { success: false, message: 'pricing catalog is being rebuilt' }); return true;
      case 'unsupported':
        sendJson(res, 503, { error: { type: 'service_unavailable', code: 'endpoint_unsupported_by_providers', message: 'no upstream supports this endpoint for the model', request_id: 'req_sbx' }, request_id: 'req_sbx' });
        return true;
      case 'html': send(res, 200, '<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html'); return true;
      case 'truncated': send(res, 200, '{"currency":"CNY","balance":"12'); return true;
      case 'hang': return true;
      case 'stall':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"currency":"CNY",');
        return true;
      case 'reset': res.socket?.destroy(); return true;
      case 'slow': await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000)); return false;
      case 'status': send(res, fault.status ?? 500, fault.body ?? '', 'application/json', fault.headers); return true;
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse, url: URL, form: URLSearchParams): Promise<void> {
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/oauth/device/code') return this.#deviceCode(res, form);
    if (method === 'POST' && path === '/oauth/token') return this.#token(res, form);
    if (path === '/device') return this.#devicePage(res, url, method === 'POST' ? form : undefined);
    if (method !== 'GET') return sendJson(res, 405, { error: { type: 'invalid_request_error', message: `${method} is not allowed here` } });
    if (path === '/api/pricing') {
      this.#catalogBytes ??= Buffer.from(JSON.stringify(this.#catalog()));
      if (!this.options.catalogChurn) return send(res, 200, this.#catalogBytes);
      // The version is near the start: splice a new one in without re-encoding the rest.
      const at = this.#catalogBytes.indexOf(CATALOG_VERSION) + CATALOG_VERSION.length;
      return send(res, 200, Buffer.concat([this.#catalogBytes.subarray(0, at), Buffer.from(`.${++this.#catalogServed}`), this.#catalogBytes.subarray(at)]));
    }
    if (path === '/api/usage/token') {
      res.writeHead(301, { location: '/api/usage/token/' });
      return void res.end();
    }
    const family = path.startsWith('/v1/open/') ? 'native'
      : path === '/v1/models' || path === '/alt/v1/models' ? 'models'
      : /^\/(?:v1\/)?dashboard\/billing\/(?:subscription|usage)$/.test(path) || path === '/api/usage/token/' ? 'compat'
      : undefined;
    if (!family) return sendJson(res, 404, { error: { type: 'not_found', message: `no route for ${path}` } });

    const principal = this.#authenticate(req);
    if (!principal) {
      return sendJson(res, 401, { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'invalid or missing credential' } });
    }
    if (principal.kind === 'device-token' && path !== '/v1/open/balance') {
      return sendJson(res, 401, { error: { type: 'authentication_error', code: 'api_key_required', message: 'this endpoint requires an API key' } });
    }
    if (!this.#rateLimit(res, principal.user, family === 'models' ? 'models' : 'account')) return;

    switch (path) {
      case '/v1/open/balance': return sendJson(res, 200, this.#balance(principal));
      case '/v1/open/usage': return this.#usage(res, url, principal);
      case '/v1/open/usage/models': return sendJson(res, 200, this.#usageByModel(url, principal));
      case '/v1/open/logs': return this.#logs(res, url, principal);
      case '/v1/models': return sendJson(res, 200, this.#models(principal.key!));
      case '/alt/v1/models': return sendJson(res, 200, this.#altModels(principal.key!));
      case '/dashboard/billing/subscription':
      case '/v1/dashboard/billing/subscription': return sendRaw(res, this.#subscription(principal.key!));
      case '/dashboard/billing/usage':
      case '/v1/dashboard/billing/usage': return sendRaw(res, this.#compatUsage(principal.key!));
      case '/api/usage/token/': return sendRaw(res, this.#tokenUsage(principal.key!));
      default: return sendJson(res, 404, { error: { type: 'not_found', message: `no route for ${path}` } });
    }
  }

  #authenticate(req: IncomingMessage): Principal | undefined {
    const header = req.headers.authorization;
    const bearer = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : undefined;
    const apiKey = req.headers['x-api-key'];
    const secret = bearer ?? (typeof apiKey === 'string' ? apiKey : undefined);
    if (!secret) return undefined;
    const key = KEYS.find((k) => k.secret === secret);
    if (key) return { kind: 'api-key', key, user: 'sandbox-user' };
    const device = this.#deviceTokens.get(secret);
    if (device && device.expiresAt > this.options.now()) return { kind: 'device-token', key: null, user: 'sandbox-user' };
    return undefined;
  }

  /** Fixed windows per user; the count goes up before the check, so Remaining can be negative. */
  #rateLimit(res: ServerResponse, user: string, scope: 'account' | 'models'): boolean {
    const limit = scope === 'models' ? this.options.modelsLimit : this.options.accountLimit;
    const id = `${scope}:${user}`;
    const now = this.options.now();
    let window = this.#windows.get(id);
    if (!window || now - window.start >= this.options.rateWindowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(id, window);
    }
    window.count++;
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(limit - window.count));
    if (window.count <= limit) return true;
    if (scope === 'models') sendJson(res, 429, { error: 'rate limit exceeded', scope: 'user' });
    else sendJson(res, 429, { error: { type: 'rate_limit_error', message: 'rate limit exceeded' } });
    return false;
  }

  #spend(filter: (call: Call) => boolean): Decimal {
    let total = ZERO;
    for (const call of this.#calls) if (filter(call)) total = total.plus(call.cost);
    return total;
  }

  #dayStart(seconds: number): number {
    const offset = this.options.dayOffsetMinutes * 60;
    return Math.floor((seconds + offset) / DAY) * DAY - offset;
  }

  #balance(principal: Principal): unknown {
    const spend = this.#spend(() => true);
    const today = this.#dayStart(this.#nowSeconds());
    const key = principal.key;
    return {
      currency: 'CNY',
      balance: TOP_UPS.minus(spend).toFixed(8),
      lifetime_spend: spend.toFixed(8),
      plan: { has_active_plan: false },
      api_key: key === null ? null : {
        name: key.name,
        prefix: key.prefix,
        daily_cost_limit: key.dailyCostLimit,
        daily_cost_used: this.#spend((c) => c.key === key.secret && c.at >= today).toFixed(8),
      },
    };
  }

  #window(url: URL, bucket: 'hour' | 'day'): { start: number; end: number } {
    const size = bucket === 'hour' ? 3600 : DAY;
    const now = this.#nowSeconds();
    const align = (t: number) => (bucket === 'day' ? this.#dayStart(t) : Math.floor(t / size) * size);
    const end = align(intParam(url, 'end') ?? now + size);
    let start = align(intParam(url, 'start') ?? end - (bucket === 'hour' ? DAY : 7 * DAY));
    if (end - start > MAX_WINDOW) start = end - MAX_WINDOW;
    return { start, end };
  }

  #usage(res: ServerResponse, url: URL, principal: Principal): void {
    const bucket = url.searchParams.get('bucket') ?? 'day';
    if (bucket !== 'hour' && bucket !== 'day') return sendJson(res, 500, { error: `invalid bucket "${bucket}"` });
    const { start, end } = this.#window(url, bucket);
    if (end <= start) return sendJson(res, 500, { error: 'start must be before end' });
    const cacheKey = `${principal.key!.secret}|${bucket}|${start}|${end}`;
    const cached = this.#cache.get(cacheKey);
    if (cached && cached.expires > this.options.now()) {
      res.setHeader('X-Cache', 'HIT');
      return send(res, 200, cached.body);
    }
    const size = bucket === 'hour' ? 3600 : DAY;
    const align = (t: number) => (bucket === 'day' ? this.#dayStart(t) : Math.floor(t / size) * size);
    const sums = new Map<number, Sum>();
    for (const call of this.#calls) {
      if (call.at < start || call.at >= end) continue;
      const at = align(call.at);
      const sum = sums.get(at) ?? emptySum();
      addCall(sum, call);
      sums.set(at, sum);
    }
    const totals = emptySum();
    for (const sum of sums.values()) mergeSum(totals, sum);
    const body = {
      bucket,
      start,
      end,
      buckets: [...sums.entries()].sort(([a], [b]) => a - b).map(([at, sum]) => this.#bucketRecord(at, sum)),
      totals: this.#metrics(totals),
    };
    const text = JSON.stringify(body);
    this.#cache.set(cacheKey, { body: text, expires: this.options.now() + this.options.cacheMs });
    res.setHeader('X-Cache', 'MISS');
    send(res, 200, text);
  }

  #bucketRecord(at: number, sum: Sum): Record<string, unknown> {
    switch (this.options.naming) {
      case 'compact': return { start: at, ...this.#metrics(sum) };
      case 'detailed': return { ts: at * 1000, ...this.#metrics(sum) };
      case 'iso': return { time: isoWithOffset(at, this.options.dayOffsetMinutes), ...this.#metrics(sum) };
    }
  }

  #metrics(sum: Sum): Record<string, unknown> {
    switch (this.options.naming) {
      case 'compact': return { calls: sum.requests, cost: sum.cost.toFixed(8) };
      case 'detailed': return { requests: sum.requests, prompt_tokens: sum.prompt, completion_tokens: sum.completion, spend: sum.cost.toFixed(8) };
      case 'iso': return { request_count: sum.requests, input_tokens: sum.prompt, output_tokens: sum.completion, cost_yuan: sum.cost.toFixed(8) };
    }
  }

  #usageByModel(url: URL, principal: Principal): unknown {
    const { start, end } = this.#window(url, 'day');
    const byModel = new Map<string, Sum>();
    for (const call of this.#calls) {
      if (call.key !== principal.key!.secret || call.at < start || call.at >= end) continue;
      const sum = byModel.get(call.model) ?? emptySum();
      addCall(sum, call);
      byModel.set(call.model, sum);
    }
    return {
      start,
      end,
      models: [...byModel.entries()]
        .sort(([, a], [, b]) => b.cost.comparedTo(a.cost))
        .map(([model, sum]) => ({ model, requests: sum.requests, prompt_tokens: sum.prompt, completion_tokens: sum.completion, cost: sum.cost.toFixed(8) })),
    };
  }

  #logs(res: ServerResponse, url: URL, principal: Principal): void {
    const { start, end } = this.#window(url, 'hour');
    const limit = Math.min(Math.max(intParam(url, 'limit') ?? 50, 1), 200);
    const cursor = url.searchParams.get('cursor');
    const offset = cursor ? Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10) : 0;
    if (!Number.isInteger(offset) || offset < 0) return sendJson(res, 500, { error: 'invalid cursor' });
    const model = url.searchParams.get('model');
    const matching = this.#calls
      .filter((c) => c.key === principal.key!.secret && c.at >= start && c.at < end && (!model || c.model === model))
      .reverse();
    const page = matching.slice(offset, offset + limit);
    const next = offset + limit < matching.length ? Buffer.from(String(offset + limit)).toString('base64url') : null;
    sendJson(res, 200, {
      data: page.map((c) => ({
        id: c.id,
        created_at: c.at,
        model: c.model,
        prompt_tokens: c.promptTokens,
        completion_tokens: c.completionTokens,
        cost: c.cost.toFixed(8),
        latency_ms: c.latencyMs,
        status: 'success',
      })),
      next_cursor: next,
      has_more: next !== null,
    });
  }

  #visibleModels(key: SandboxKey) {
    return CATALOG.filter((m) => m.groups.some((g) => key.groups.includes(g))).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  #models(key: SandboxKey): unknown {
    return {
      object: 'list',
      data: this.#visibleModels(key).map((m, i) => ({
        id: m.name,
        object: 'model',
        created: 1_735_689_600 + i * 86_400,
        owned_by: 'sandbox-gateway',
        context_window: m.contextWindow,
        max_output_tokens: m.maxOutput,
        reasoning_efforts: m.efforts,
      })),
    };
  }

  #altModels(key: SandboxKey): unknown {
    const data = this.#visibleModels(key).map((m, i) => ({
      type: 'model',
      id: m.name,
      display_name: m.name,
      created_at: new Date((1_735_689_600 + i * 86_400) * 1000).toISOString().replace('.000Z', 'Z'),
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }

  #catalog(): unknown {
    const groups = { default: 1, vip: 1.2, image: 1, video: 1 };
    return {
      success: true,
      pricing_version: CATALOG_VERSION,
      auto_groups: ['default'],
      group_ratio: groups,
      usable_group: { default: 'standard models', vip: 'all text models', image: 'image generation', video: 'video generation' },
      supported_endpoint: {
        openai: { path: '/v1/chat/completions', method: 'POST' },
        'openai-response': { path: '/v1/responses', method: 'POST' },
        'openai-response-compact': { path: '/v1/responses/compact', method: 'POST' },
        anthropic: { path: '/v1/messages', method: 'POST' },
        gemini: { path: '/v1beta/models/{model}:generateContent', method: 'POST' },
        'image-generation': { path: '/v1/images/generations', method: 'POST' },
        'video-generation': { path: '/v1/videos', method: 'POST' },
        embeddings: { path: '/v1/embeddings', method: 'POST' },
        'audio-speech': { path: '/v1/audio/speech', method: 'POST' },
      },
      vendors: VENDORS,
      data: [...CATALOG, ...syntheticModels(this.options.catalogSize - CATALOG.length)].map((m) => {
        const vendor = VENDORS.find((v) => v.name === m.vendor)!;
        const input = new Decimal(m.input);
        const ratio = m.staleRatio ?? input.mul(500).toNumber();
        return {
          model_name: m.name,
          quota_type: m.kind === 'per-call' || m.kind === 'video' || m.kind === 'image' ? 1 : 0,
          model_ratio: ratio,
          model_price: m.kind === 'per-call' ? new Decimal(m.extraPrices!.price_per_call!).toNumber() : 0,
          owner_by: m.vendor,
          completion_ratio: input.isZero() ? 1 : new Decimal(m.output).div(input).toDecimalPlaces(4).toNumber(),
          cache_ratio: input.isZero() ? 1 : new Decimal(m.cacheRead).div(input).toDecimalPlaces(4).toNumber(),
          enable_groups: m.groups,
          supported_endpoint_types: endpointTypes(m),
          billing_mode: m.kind === 'per-call' ? 'per_call' : m.kind === 'video' ? 'per_second' : m.kind === 'image' ? 'per_image' : 'per_token',
          vendor,
          context_window: m.contextWindow,
          max_output_tokens: m.maxOutput,
          reasoning_efforts: m.efforts,
          service_pricing: {
            input_unit_price: m.input,
            output_unit_price: m.output,
            cache_read_input_price: m.cacheRead,
            ...m.extraPrices,
          },
        };
      }),
    };
  }

  /** Compatible spend: the key's when it carries a total cost limit, the account's otherwise. */
  #compatSpend(key: SandboxKey): Decimal {
    return key.totalCostLimit ? this.#spend((c) => c.key === key.secret) : this.#spend(() => true);
  }

  #subscription(key: SandboxKey): string {
    const spend = this.#spend(() => true);
    const balance = TOP_UPS.minus(spend);
    const soft = key.totalCostLimit ? new Decimal(key.totalCostLimit) : balance.plus(spend);
    return `{"object":"billing_subscription","has_payment_method":true,"soft_limit_usd":${soft.toFixed(8)},"hard_limit_usd":${soft.toFixed(8)},"system_hard_limit_usd":${soft.toFixed(8)},"access_until":0,"plan":{"title":"pay-as-you-go","id":"payg"}}`;
  }

  #compatUsage(key: SandboxKey): string {
    return `{"object":"list","total_usage":${this.#compatSpend(key).mul(100).toFixed(6)}}`;
  }

  #tokenUsage(key: SandboxKey): string {
    const used = this.#compatSpend(key);
    const granted = key.totalCostLimit ? new Decimal(key.totalCostLimit) : TOP_UPS;
    return `{"object":"token_usage","name":${JSON.stringify(key.name)},"total_granted":${granted.toFixed(8)},"total_used":${used.toFixed(8)},"total_available":${granted.minus(used).toFixed(8)},"unlimited_quota":false,"model_limits":${JSON.stringify(key.groups)},"expires_at":0,"currency":"CNY"}`;
  }

  #deviceCode(res: ServerResponse, form: URLSearchParams): void {
    if (!form.get('client_id')) return sendJson(res, 400, { error: 'invalid_client', error_description: 'client_id is required' });
    const deviceCode = randomBytes(24).toString('base64url');
    const userCode = `${randomLetters(4)}-${randomLetters(4)}`;
    const now = this.options.now();
    this.#grants.set(deviceCode, {
      deviceCode,
      userCode,
      expiresAt: now + this.options.deviceExpiresIn * 1000,
      interval: this.options.deviceInterval,
      lastPoll: 0,
      polls: 0,
      state: 'pending',
      slowDownNext: 0,
    });
    sendJson(res, 200, {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${this.#baseUrl}/device`,
      verification_uri_complete: `${this.#baseUrl}/device?user_code=${userCode}`,
      expires_in: this.options.deviceExpiresIn,
      interval: this.options.deviceInterval,
    });
  }

  #token(res: ServerResponse, form: URLSearchParams): void {
    const grantType = form.get('grant_type');
    if (grantType === 'refresh_token') {
      const access = this.#refreshTokens.get(form.get('refresh_token') ?? '');
      if (!access) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
      this.#deviceTokens.delete(access);
      this.#refreshTokens.delete(form.get('refresh_token')!);
      return sendJson(res, 200, this.#issueToken());
    }
    if (grantType !== 'urn:ietf:params:oauth:grant-type:device_code') {
      return sendJson(res, 400, { error: 'unsupported_grant_type' });
    }
    const grant = this.#grants.get(form.get('device_code') ?? '');
    if (!grant) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown device code' });
    const now = this.options.now();
    grant.polls++;
    if (now >= grant.expiresAt) return sendJson(res, 400, { error: 'expired_token' });
    if (grant.slowDownNext > 0) {
      grant.slowDownNext--;
      grant.interval += 5;
      return sendJson(res, 400, { error: 'slow_down' });
    }
    if (grant.state === 'pending' && this.options.autoApproveAfterPolls !== undefined && grant.polls >= this.options.autoApproveAfterPolls) {
      grant.state = 'approved';
    }
    if (grant.state === 'denied') return sendJson(res, 400, { error: 'access_denied' });
    if (grant.state === 'pending') return sendJson(res, 400, { error: 'authorization_pending' });
    this.#grants.delete(grant.deviceCode);
    sendJson(res, 200, this.#issueToken());
  }

  #issueToken(): unknown {
    const access = `sbx-dt-${randomBytes(18).toString('base64url')}`;
    const refresh = `sbx-rt-${randomBytes(18).toString('base64url')}`;
    this.#deviceTokens.set(access, { expiresAt: this.options.now() + this.options.accessTokenLifetime * 1000, refresh });
    this.#refreshTokens.set(refresh, access);
    return { access_token: access, token_type: 'Bearer', expires_in: this.options.accessTokenLifetime, refresh_token: refresh };
  }

  #devicePage(res: ServerResponse, url: URL, form: URLSearchParams | undefined): void {
    const code = (form?.get('user_code') ?? url.searchParams.get('user_code') ?? '').toUpperCase();
    let note = '';
    if (form) note = (form.get('action') === 'deny' ? this.deny(code) : this.approve(code)) ? `<p>Done: ${form.get('action') === 'deny' ? 'denied' : 'approved'}.</p>` : '<p>Unknown or used code.</p>';
    const safe = code.replace(/[^A-Z-]/g, '');
    send(res, 200, `<!doctype html><title>Sandbox device login</title><h1>Sandbox device login</h1>${note}<form method="post"><input name="user_code" value="${safe}"><button name="action" value="approve">Approve</button><button name="action" value="deny">Deny</button></form>`, 'text/html');
  }
}

/** Generated models that look like real ones, for catalogs of thousands of entries. */
function syntheticModels(count: number): typeof CATALOG {
  const models: typeof CATALOG = [];
  for (let i = 0; i < count; i++) {
    const template = CATALOG[i % CATALOG.length]!;
    models.push({ ...template, name: `${template.name}-ft-${String(i).padStart(5, '0')}`, input: new Decimal(template.input).mul(1 + (i % 7) / 10).toFixed(8) });
  }
  return models;
}

interface Sum {
  requests: number;
  prompt: number;
  completion: number;
  cost: Decimal;
}

function emptySum(): Sum {
  return { requests: 0, prompt: 0, completion: 0, cost: ZERO };
}

function addCall(sum: Sum, call: Call): void {
  sum.requests++;
  sum.prompt += call.promptTokens;
  sum.completion += call.completionTokens;
  sum.cost = sum.cost.plus(call.cost);
}

function mergeSum(into: Sum, sum: Sum): void {
  into.requests += sum.requests;
  into.prompt += sum.prompt;
  into.completion += sum.completion;
  into.cost = into.cost.plus(sum.cost);
}

function isoWithOffset(seconds: number, offsetMinutes: number): string {
  const local = new Date((seconds + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function intParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || !/^-?\d+$/.test(value)) return undefined;
  return Number(value);
}

function randomLetters(count: number): string {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  return [...randomBytes(count)].map((b) => letters[b % letters.length]).join('');
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, body: string | Buffer, type = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify(body), 'application/json', headers);
}

/** For bodies whose numbers are written by hand (exact decimals as JSON numbers). */
function sendRaw(res: ServerResponse, body: string): void {
  send(res, 200, body);
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return new Sandbox(options).listen(options.port ?? 0);
}
