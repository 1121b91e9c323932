// OAuth 2.0 Device Authorization Grant (RFC 8628) and refresh (RFC 6749 §6).
import { AuthError } from '../errors.js';
import { isJsonNumber, isJsonObject, numberText } from '../domain/json.js';
import type { DeviceToken, ProfileRecord } from '../settings/store.js';
import type { HttpClient, JsonResponse } from './http.js';

export interface OAuthEndpoints {
  deviceCodeUrl: string;
  tokenUrl: string;
  clientId: string;
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | undefined;
  /** Seconds the codes stay valid. */
  expiresIn: number;
  /** Seconds between polls. */
  interval: number;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const DEFAULT_INTERVAL = 5;
const SLOW_DOWN_STEP = 5;
/** Polling intervals are kept within these seconds, whatever the server says (a timer cannot wait 2^31 ms). */
export const MIN_INTERVAL = 1;
export const MAX_INTERVAL = 60;
/** A device code lasts at most this long for tally (RFC 8628 suggests minutes, not years). */
export const MAX_EXPIRES_IN = 3600;

/**
 * Tokens go into an Authorization header and a file: printable ASCII without spaces only
 * (RFC 6750's token68 and more); anything else (CR, LF, controls) is refused, never stored.
 */
export function checkToken(value: unknown, field: string, host: string): string {
  if (typeof value !== 'string' || value === '') throw new AuthError(`${host} sent no ${field}; nothing was stored`);
  if (!/^[\x21-\x7e]{1,8192}$/.test(value)) throw new AuthError(`${host} sent an ${field} with characters that cannot go into a header (spaces, line breaks or controls); nothing was stored`);
  return value;
}

export function oauthEndpoints(baseUrl: URL, record: ProfileRecord | undefined, clientId: string | undefined): OAuthEndpoints {
  const base = baseUrl.href.replace(/\/$/, '');
  return {
    deviceCodeUrl: record?.device_code_url ?? `${base}/oauth/device/code`,
    tokenUrl: record?.token_url ?? `${base}/oauth/token`,
    clientId: clientId ?? record?.client_id ?? 'tally',
  };
}

const oauthStatus = (status: number) => status >= 400 && status < 500 && status !== 429;

export async function requestDeviceCode(client: HttpClient, endpoints: OAuthEndpoints): Promise<DeviceAuthorization> {
  const response = await client.requestJson({
    path: endpoints.deviceCodeUrl,
    method: 'POST',
    form: { client_id: endpoints.clientId },
    family: 'oauth',
    auth: 'none',
    acceptStatus: oauthStatus,
  });
  const body = response.body;
  if (response.status !== 200 || !isJsonObject(body)) throw oauthFailure(client, response, 'the device authorization request');
  const { device_code: deviceCode, user_code: userCode, verification_uri: uri, verification_uri_complete: complete } = body;
  const expiresIn = seconds(body.expires_in);
  const interval = body.interval === undefined || body.interval === null ? DEFAULT_INTERVAL : seconds(body.interval);
  if (typeof deviceCode !== 'string' || typeof userCode !== 'string' || typeof uri !== 'string' || expiresIn === undefined) {
    throw client.unexpected('the device authorization response lacks device_code, user_code, verification_uri or expires_in');
  }
  if (interval === undefined) throw client.unexpected('the device authorization response has an interval that is not a number of seconds');
  if (expiresIn <= 0) throw client.unexpected(`the device code expires at once (expires_in ${expiresIn})`);
  // What is shown to a person must be fit to show: a code of a few characters, a web address.
  if (userCode.length > MAX_USER_CODE || !/^[\x21-\x7e]+$/.test(userCode)) throw client.unexpected(`the user_code is not a short code to type (${userCode.length} characters)`);
  for (const [field, value] of [['verification_uri', uri], ['verification_uri_complete', complete]] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > MAX_URI || !/^https?:\/\/[\x21-\x7e]+$/.test(value)) throw client.unexpected(`${field} is not a web address to open`);
  }
  return {
    deviceCode,
    userCode,
    verificationUri: uri,
    verificationUriComplete: typeof complete === 'string' ? complete : undefined,
    expiresIn: Math.min(expiresIn, MAX_EXPIRES_IN),
    interval: clampInterval(interval),
  };
}

/** The longest user code shown (RFC 8628 codes are 8 or 9 characters) and the longest address. */
const MAX_USER_CODE = 64;
const MAX_URI = 2048;

/**
 * A number of seconds as servers write it: a JSON number (a fraction rounds up) or a string of
 * digits (`"5"`); undefined for anything else.
 */
function seconds(value: unknown): number | undefined {
  const text = isJsonNumber(value) ? numberText(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !/^\d{1,400}(\.\d{1,400})?([eE]\+?\d{1,3})?$/.test(text)) return undefined;
  const n = Math.ceil(Number(text));
  // Callers clamp what they wait for; a value past what a double holds exactly is as good as endless.
  return Number.isFinite(n) ? Math.min(n, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
}

export interface PollClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  onWait?: (seconds: number, reason: string) => void;
}

function clampInterval(seconds: number): number {
  return Math.min(Math.max(seconds, MIN_INTERVAL), MAX_INTERVAL);
}

/**
 * Polls the token endpoint as RFC 8628 §3.4–3.5 prescribe until the user decides or the code
 * expires. `client` is asked for before each poll: the caller can give each request its own
 * deadline, so that the wait for approval is bounded by the code's expiry, not a command timeout.
 */
export async function pollForToken(
  client: () => Promise<HttpClient>,
  endpoints: OAuthEndpoints,
  authorization: DeviceAuthorization,
  clock: PollClock,
): Promise<DeviceToken> {
  const expiresAt = clock.now() + authorization.expiresIn * 1000;
  let interval = authorization.interval;
  let reason = 'waiting for approval';
  for (;;) {
    clock.onWait?.(interval, reason);
    // Never past the code's expiry: the last poll happens as it runs out.
    await clock.sleep(Math.max(0, Math.min(interval * 1000, expiresAt - clock.now())));
    if (clock.now() >= expiresAt) throw new AuthError('the device code expired before it was approved; run `tally login --device` again');
    const poll = await client();
    const response = await poll.requestJson({
      path: endpoints.tokenUrl,
      method: 'POST',
      form: { grant_type: DEVICE_GRANT, device_code: authorization.deviceCode, client_id: endpoints.clientId },
      family: 'oauth',
      auth: 'none',
      acceptStatus: oauthStatus,
    });
    const error = isJsonObject(response.body) ? response.body.error : undefined;
    // RFC 8628 answers pending and the like with 400; a server that says it with 200 is heard too.
    if (response.status === 200 && typeof error !== 'string') return readToken(poll, response, clock.now());
    switch (error) {
      case 'authorization_pending':
        reason = 'authorization pending';
        continue;
      case 'slow_down':
        interval = clampInterval(interval + SLOW_DOWN_STEP);
        reason = 'asked to slow down';
        continue;
      case 'access_denied':
        throw new AuthError('access denied: the device login was declined', { status: response.status });
      case 'expired_token':
        throw new AuthError('the device code expired before it was approved; run `tally login --device` again', { status: response.status });
      default:
        throw oauthFailure(poll, response, 'the device login');
    }
  }
}

export async function refreshDeviceToken(client: HttpClient, endpoints: OAuthEndpoints, refreshToken: string, now: number): Promise<DeviceToken> {
  const response = await client.requestJson({
    path: endpoints.tokenUrl,
    method: 'POST',
    form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: endpoints.clientId },
    family: 'oauth',
    auth: 'none',
    acceptStatus: oauthStatus,
  });
  if (response.status !== 200) {
    throw new AuthError('the device login expired and could not be renewed; run `tally login --device` again', { status: response.status });
  }
  const token = readToken(client, response, now);
  return { ...token, refresh_token: token.refresh_token ?? refreshToken };
}

function readToken(client: HttpClient, response: JsonResponse, now: number): DeviceToken {
  const body = response.body;
  if (!isJsonObject(body) || typeof body.access_token !== 'string' || body.access_token === '') {
    throw client.unexpected('the token response has no access_token');
  }
  const accessToken = checkToken(body.access_token, 'access_token', client.host);
  const refreshToken = body.refresh_token === undefined || body.refresh_token === null ? undefined : checkToken(body.refresh_token, 'refresh_token', client.host);
  const expiresIn = seconds(body.expires_in);
  // An expiry beyond any date a Date can hold (or a negative one) is as good as none.
  const expiresAt = expiresIn !== undefined && expiresIn > 0 && expiresIn < 100 * 365 * 86_400 ? new Date(now + expiresIn * 1000).toISOString() : undefined;
  return {
    access_token: accessToken,
    ...(refreshToken !== undefined ? { refresh_token: refreshToken } : {}),
    ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
    ...(typeof body.token_type === 'string' && /^[\x21-\x7e]{1,40}$/.test(body.token_type) ? { token_type: body.token_type } : {}),
  };
}

function oauthFailure(client: HttpClient, response: JsonResponse, what: string): AuthError {
  const body = response.body;
  const code = isJsonObject(body) && typeof body.error === 'string' ? body.error : undefined;
  const description = isJsonObject(body) && typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
  return new AuthError(`${client.host} refused ${what} (HTTP ${response.status}${code ? `, ${code}` : ''})${description}`, { status: response.status });
}
