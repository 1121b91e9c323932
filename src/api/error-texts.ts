// Every error shape of the service, and of the network between, as a typed error with a message
// a person can act on: HTTP statuses, 200 bodies that are errors, rate limits, refused
// connections, certificates, proxies, deadlines.
import { AuthError, Interrupted, NetworkError, RateLimitError, ServiceError, TimeoutError, type TallyError } from '../errors.js';
import { type JsonValue, isJsonObject } from '../domain/json.js';
import { escapeControl } from '../output/escape.js';
import type { ParsedBody } from './decode.js';
import type { JsonRequest } from './request.js';
import { trimEnd } from '../domain/trim.js';

/** Who speaks in an error: the gateway's host and base URL, and how its words are made safe to show. */
export interface GatewayVoice {
  host: string;
  baseUrl: URL;
  clean(text: string): string;
  signal: AbortSignal;
  timeoutSeconds: number;
}

/** Thrown by a transport or a body read; what the retry loop looks at. */
interface SystemError {
  code?: string;
  name?: string;
}

export function rateLimited(gw: GatewayVoice, headers: Record<string, string | undefined>, body: ParsedBody | undefined, text: string, when: string): RateLimitError {
  const limit = headers['x-ratelimit-limit'];
  const message = body ? serviceMessage(body.value) : undefined;
  const detail = limit ? ` (limit ${limit} requests per minute)` : '';
  const said = message ?? (text.trim() ? excerpt(text) : undefined);
  return new RateLimitError(
    `rate limited by ${gw.host}${detail} ${when}${said ? `: ${gw.clean(said)}` : ''}`,
    { status: 429 },
  );
}


export function httpError(gw: GatewayVoice, status: number, body: ParsedBody | undefined, text: string, request: JsonRequest): TallyError {
  const value = body?.value;
  const message = value === undefined ? undefined : serviceMessage(value);
  const said = message ? `: ${gw.clean(message)}` : text.trim() && body === undefined ? ` (${excerpt(gw.clean(text))})` : '';
  const code = value === undefined ? undefined : errorCode(value);
  if (status === 401) {
    return new AuthError(`${gw.host} rejected the credential (HTTP 401)${said}`, { status, hint: 'Check which credential is in use with `tally auth status`.' });
  }
  if (status === 403) return new AuthError(`${gw.host} denied access to ${request.path} (HTTP 403)${said}`, { status });
  if (status === 413) return new ServiceError(`request too large for ${gw.host} (HTTP 413)${said}`, { status });
  if (status === 503 && code === 'endpoint_unsupported_by_providers') {
    return new ServiceError(`${gw.host}: no upstream serves this model on this endpoint (HTTP 503)${said}; retrying will not help`, { status });
  }
  if (status === 504) return new ServiceError(`${gw.host} timed out upstream (HTTP 504)${said}`, { status });
  // A base URL that ends in /v1 (as chat clients ask for it) makes every native path /v1/v1/...: say what was asked.
  const base = trimEnd(gw.baseUrl.pathname, '/');
  if (status === 404 && /\/v1$/i.test(base) && request.path.startsWith('/v1/')) {
    const asked = `${base}${request.path}`;
    return new ServiceError(`${gw.host} answered HTTP 404 for ${asked}${said}`, { status, hint: `The base URL ends in /v1, so tally asked ${asked}; the base URL is the gateway's root: try ${gw.baseUrl.origin}${base.slice(0, -3) || ''} (tally config set base_url, or TALLY_BASE_URL).` });
  }
  return new ServiceError(`${gw.host} answered HTTP ${status} for ${request.path}${said}`, { status });
}

/**
 * HTTP 200 bodies that are errors all the same: `{error}` (an object or a message; `false`,
 * `""` or `null` say there is none) and `success: false`, on any endpoint.
 */
export function checkBodyError(gw: GatewayVoice, request: JsonRequest, body: JsonValue, status: number): void {
  if (!isJsonObject(body) || request.family === 'oauth') return;
  if (isRealError(body.error)) {
    const message = serviceMessage(body) ?? 'an error without a message';
    throw new ServiceError(`${gw.host} reported an error for ${request.path}: ${gw.clean(message)}`, { status });
  }
  if (body.success === false) {
    const message = serviceMessage(body);
    throw new ServiceError(
      `${gw.host} reported success: false for ${request.path}${message ? `: ${gw.clean(message)}` : ''}`,
      { status },
    );
  }
}


export function networkFailure(gw: GatewayVoice, error: unknown, url: URL): ServiceError | Interrupted {
  if (gw.signal.aborted) return abortError(gw, error);
  const code = (error as SystemError | undefined)?.code;
  const proxy = (error as { proxy?: unknown } | undefined)?.proxy;
  if (typeof proxy === 'string') return proxyFailure(gw, error, code, proxy, url);
  const where = url.host;
  switch (code) {
    case 'ECONNREFUSED': return new NetworkError(`cannot connect to ${where}: connection refused`, { cause: error });
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return new NetworkError(`cannot resolve ${url.hostname}`, { cause: error });
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET': return new NetworkError(`connection to ${where} was reset`, { cause: error });
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new NetworkError(`the TLS certificate of ${where} is not signed by an authority this machine trusts (${code}); for a private CA or a TLS-inspecting proxy, name its certificate in TALLY_CA_FILE (PEM)`, { cause: error });
    case 'CERT_HAS_EXPIRED': return new NetworkError(`the TLS certificate of ${where} has expired`, { cause: error });
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return new NetworkError(`the TLS certificate of ${where} is for another host name`, { cause: error });
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new NetworkError(`request to ${where} failed: ${gw.clean(message)}`, { cause: error });
    }
  }
}

/** A request through a proxy that failed: the proxy is named, and the gateway is not blamed. */
export function proxyFailure(gw: GatewayVoice, error: unknown, code: string | undefined, proxy: string, url: URL): NetworkError {
  const message = error instanceof Error ? error.message : String(error);
  const tunnel = /Proxy response \((\d{3})\)/.exec(message);
  const what =
    code === 'ECONNREFUSED' ? 'connection refused'
    : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'its name does not resolve'
    : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' ? 'the connection was reset'
    : tunnel ? `it refused to open a tunnel to ${url.host} (HTTP ${tunnel[1]})`
    : gw.clean(message);
  return new NetworkError(`cannot reach ${url.host} through the proxy ${proxy} (HTTPS_PROXY/HTTP_PROXY): ${what}`, { cause: error });
}

export function abortError(gw: GatewayVoice, error: unknown): TimeoutError | Interrupted {
  const reason: unknown = gw.signal.reason;
  if (reason instanceof Interrupted) return reason;
  return new TimeoutError(`timed out after ${gw.timeoutSeconds}s waiting for ${gw.host}`, { cause: error });
}

/** The service's own words: the error string, the error object's message, or a message field. */
export function serviceMessage(body: JsonValue): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const error = body.error;
  if (typeof error === 'string' && error !== '') return error;
  if (isJsonObject(error) && Object.keys(error).length > 0) {
    for (const field of ['message', 'error_description', 'code', 'type']) {
      const value = error[field];
      if (typeof value === 'string' && value) return value;
    }
    return JSON.stringify(error);
  }
  for (const field of ['message', 'error_description', 'msg']) {
    const value = body[field];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

function errorCode(body: JsonValue): string | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.error)) return undefined;
  const code = body.error.code;
  return typeof code === 'string' ? code : undefined;
}

/** An `error` field that says something went wrong (not false, "", null, 0 or an empty object). */
function isRealError(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === 0) return false;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

export function isDraining(body: ParsedBody | undefined): boolean {
  return body !== undefined && isJsonObject(body.value) && typeof body.value.error === 'string' && /draining/i.test(body.value.error);
}

export function isConnectionReset(error: unknown): boolean {
  const code = (error as SystemError | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return escapeControl(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat) || 'empty body';
}
