// `tally proxy`'s server: a loopback HTTP server in front of the profile's gateway. Every request
// under /v1/ is forwarded through the one transport with the profile's credential (the client
// holds a local token, never the key) and its answer passed back unchanged (status, end-to-end
// headers, body; a stream chunk by chunk as it arrives). Before a call is forwarded its worst case
// is reserved in the ledger, and a call that would pass a limit is refused with 402 in the
// interface's own error shape; after it, its usage is priced at the catalog's prices by the rule
// the audit uses (domain/audit.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Transport } from '../api/transport-types.js';
import { Decimal, derivedText } from '../domain/money.js';
import type { PriceRow } from '../domain/catalog.js';
import { expectedCharge } from '../domain/audit.js';
import { type CallUsage, StreamUsage, usageOf } from './usage.js';
import type { SpendLedger } from './ledger.js';
import type { CallMarks } from './reconcile.js';
import { sessionOf } from './session.js';
import { hardenServer } from '../serving.js';
import { KeyScrubber } from './scrub.js';

/** A model's prices and its output limit (the worst case of a call that names no max_tokens). */
export interface ModelPrices {
  row: PriceRow;
  maxOutput: number | undefined;
}

export interface ProxyOptions {
  transport: Transport;
  gateway: URL;
  credential: string;
  token: string;
  ledger: SpendLedger;
  prices: Map<string, ModelPrices>;
  /** Refuse a call whose worst case cannot be priced (a model the catalog does not price). */
  failClosed: boolean;
  /** Bound of each forwarded call, answer included (ms). */
  timeoutMs: number;
  host: string;
  port: number;
  /** Says what happened to a call (for --json-log and --debug); never a body. */
  log?: (entry: Record<string, unknown>) => void;
  /** Told of each call that ended, with what knows its entry in the gateway's log again (the reconcile loop). */
  ended?: (id: number, marks: CallMarks) => void;
}

export interface RunningProxy {
  url: string;
  /** Stops taking calls, waits for those in flight, and closes. */
  close(): Promise<void>;
}

/** The largest request body forwarded (the interface's own limit for chat-style bodies). */
const MAX_REQUEST_BYTES = 100 * 1024 * 1024;
/** A JSON answer is read for its usage up to this size (it passes whole either way). */
const MAX_READ_BYTES = 8 * 1024 * 1024;
/** Headers that belong to one connection, never forwarded either way. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

/** The key's forms, worked out once: what no answer may carry to a client. */
interface KeyForms {
  forms: Buffer[];
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const key: KeyForms = { forms: KeyScrubber.formsOf(options.credential) };
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server: Server = createServer((req, res) => {
    inFlight++;
    void handle(req, res, options, () => ownHosts, key).finally(() => {
      if (--inFlight === 0) drained?.();
    });
  });
  // A malformed request gets a status, and the server goes on (the rule of every server tally runs).
  hardenServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const hostText = options.host.includes(':') ? `[${options.host}]` : options.host;
  const ownHosts = new Set([`${hostText}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  return {
    url: `http://${hostText}:${port}`,
    close: async () => {
      server.close();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
    },
  };
}

/** An error in the interface's own shape. */
function refuse(res: ServerResponse, status: number, type: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { type, code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function tokenOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^Bearer /i.test(auth)) return auth.slice(7).trim();
  const key = req.headers['x-api-key'];
  return typeof key === 'string' ? key.trim() : undefined;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function handle(req: IncomingMessage, res: ServerResponse, options: ProxyOptions, ownHosts: () => Set<string>, key: KeyForms): Promise<void> {
  const started = Date.now();
  const scrubText = (text: string) => (text.length < 8 ? text : KeyScrubber.scrubHeader(text, key.forms));
  const path = req.url ?? '/';
  // DNS rebinding: a page of another site that reached this port by a name of its own is refused.
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  if (!ownHosts().has(host.toLowerCase()) || (origin !== undefined && !ownHosts().has(origin.replace(/^https?:\/\//i, '').toLowerCase()))) {
    return refuse(res, 403, 'permission_error', 'tally_host', 'this proxy answers only requests addressed to its own loopback address');
  }
  if (!sameToken(tokenOf(req), options.token)) return refuse(res, 401, 'authentication_error', 'tally_token', "this proxy takes the local token tally proxy wrote (--token-file), not a gateway key");
  if (!path.startsWith('/v1/')) return refuse(res, 404, 'not_found_error', 'tally_path', 'this proxy forwards the gateway\'s inference interface, under /v1/');
  const body = await readBody(req);
  if (body === undefined) return refuse(res, 413, 'invalid_request_error', 'request_body_too_large', 'the request body is larger than 100 MiB');

  // The call's worst case: every byte of its body as a token in, and its output limit out, at its model's prices.
  let asked: Record<string, unknown> = {};
  try {
    const parsed = body.length > 0 && /json/i.test(String(req.headers['content-type'] ?? 'application/json')) ? (JSON.parse(body.toString('utf8')) as unknown) : undefined;
    if (parsed && typeof parsed === 'object') asked = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: forwarded as it is; its model is not known, so it is not priced.
  }
  const model = typeof asked.model === 'string' ? asked.model : undefined;
  const prices = model === undefined ? undefined : options.prices.get(model);
  const maxOut = [asked.max_tokens, asked.max_completion_tokens, asked.max_output_tokens].find((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) as number | undefined;
  const worst = prices ? priced({ input: body.length, output: maxOut ?? prices.maxOutput ?? 0 }, prices, model!) : undefined;
  if (worst === undefined && options.failClosed && req.method === 'POST') {
    return refuse(res, 402, 'insufficient_quota', 'tally_not_priced', `tally proxy cannot price a call${model ? ` of ${model}` : ''} (the catalog states no price for it, or the request names no model), and --fail-closed refuses what it cannot price`);
  }
  const session = sessionOf(req.headers, asked);
  const reservation = options.ledger.reserve(worst ?? new Decimal(0), session);
  if ('refused' in reservation) {
    const { limit, spent, worst: w } = reservation.refused;
    const whose = limit.scope === 'session' ? (session === undefined ? ' for calls that name no session' : ` for session ${JSON.stringify(session)}`) : '';
    options.log?.({ at: new Date(started).toISOString(), path, model: model ?? null, ...(session === undefined ? {} : { session }), outcome: 'refused', limit: limit.name, spent: spent.toFixed(), worst: w.toFixed() });
    return refuse(res, 402, 'insufficient_quota', 'tally_limit', `tally proxy refused this call: ${limit.name} is ${limit.amount.toFixed()} (CNY)${whose}; spent ${derivedText(spent)} so far, and this call could cost up to ${derivedText(w)}. ${limit.raise}`);
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP.has(name) || name === 'authorization' || name === 'x-api-key' || name === 'origin' || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers.authorization = `Bearer ${options.credential}`;
  const target = new URL(`${options.gateway.pathname.replace(/\/$/, '')}${path}`, options.gateway.origin);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let cost: Decimal | undefined;
  let status = 0;
  const marks: CallMarks = { ids: [], at: started };
  try {
    const answer = await options.transport({ method: req.method ?? 'GET', url: target, headers, ...(body.length > 0 ? { body } : {}), signal });
    status = answer.status;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || HOP.has(name)) continue;
      out[name] = scrubText(value);
      // The gateway's request id: how its log names the call, where it does.
      if (/request[-_]?id$/i.test(name) && value.length <= 256) marks.ids.push(value);
    }
    res.writeHead(answer.status, out);
    const stream = /text\/event-stream/i.test(answer.headers['content-type'] ?? '') ? new StreamUsage() : undefined;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const scrubber = new KeyScrubber(key.forms);
    for await (const chunk of answer.body) {
      // Passed on as it arrives (a stream is never held), the key overwritten wherever the gateway echoed it.
      const passing = scrubber.push(chunk);
      if (passing.length) res.write(passing);
      if (stream) stream.push(chunk);
      else if (keptBytes + chunk.length <= MAX_READ_BYTES) {
        kept.push(Buffer.from(chunk));
        keptBytes += chunk.length;
      }
    }
    res.end(scrubber.end());
    // An answer the gateway refused (4xx) is not charged; one it served is priced from its usage.
    if (answer.status >= 400 && answer.status < 500) cost = new Decimal(0);
    else if (answer.status < 300) {
      let usage: CallUsage = {};
      if (stream) usage = stream.result();
      else {
        try {
          usage = usageOf(JSON.parse(Buffer.concat(kept).toString('utf8')));
        } catch {
          usage = {};
        }
      }
      if (usage.id) marks.ids.push(usage.id);
      Object.assign(marks, { ...(usage.model ?? model ? { model: usage.model ?? model } : {}), ...(usage.input === undefined ? {} : { input: usage.input }), ...(usage.output === undefined ? {} : { output: usage.output }) });
      const at = options.prices.get(usage.model ?? model ?? '');
      // A request that names no model and an answer that reports no usage (the model list) is no billed call.
      const billed = model !== undefined || usage.input !== undefined || usage.output !== undefined;
      cost = !billed ? new Decimal(0) : at && usage.input !== undefined && usage.output !== undefined ? priced(usage as Required<Pick<CallUsage, 'input' | 'output'>> & CallUsage, at, usage.model ?? model!) : undefined;
    }
  } catch (error) {
    // The gateway could not be reached, or the answer did not end within --timeout: 502 where nothing was sent yet.
    if (!res.headersSent) refuse(res, 502, 'api_error', 'tally_upstream', `tally proxy could not get an answer from the gateway (${signal.aborted ? `no whole answer within ${options.timeoutMs / 1000}s` : ((error as NodeJS.ErrnoException).code ?? 'a failed connection')})`);
    else res.destroy();
  } finally {
    options.ledger.settle(reservation.id, cost);
    // A call the gateway refused or never answered is in no log; one it served is looked for there.
    if (status >= 200 && status < 300 && !(cost?.isZero() ?? false)) options.ended?.(reservation.id, marks);
    options.log?.({ at: new Date(started).toISOString(), path, model: model ?? null, ...(session === undefined ? {} : { session }), status, outcome: 'forwarded', cost: cost === undefined ? null : cost.toFixed(), ms: Date.now() - started });
  }
}

/** What tokens cost at a model's prices (the audit's one rule); undefined where the catalog cannot say. */
function priced(usage: { input: number; output: number; cacheRead?: number; cacheBeside?: boolean; cacheWrite?: number }, prices: ModelPrices, model: string): Decimal | undefined {
  // Cache writes at the input price (the catalog states none for them); reads counted beside the input where the usage counts them so.
  const input = new Decimal(usage.input).plus(usage.cacheWrite ?? 0);
  const expected = expectedCharge({ input, output: new Decimal(usage.output), ...(usage.cacheRead ? { cacheRead: new Decimal(usage.cacheRead) } : {}), calls: new Decimal(1) }, prices.row, model);
  if (expected.basis === 'unknown') return undefined;
  return usage.cacheBeside && expected.alternative !== undefined ? expected.alternative : expected.amount;
}
