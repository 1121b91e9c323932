// The OAuth 2.0 Device Authorization Grant (RFC 8628) as the sandbox's authorization server:
// device codes, polling with authorization_pending / slow_down / access_denied / expired_token,
// access tokens that work on the balance endpoint only, refresh tokens, and an approval page.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { send, sendJson } from './http.js';

export interface DeviceOptions {
  /** Polling interval the gateway asks for, and code lifetime, in seconds. */
  interval: number;
  expiresIn: number;
  /** Approve codes by themselves after this many polls (undefined: wait for approve()). */
  autoApproveAfterPolls: number | undefined;
  accessTokenLifetime: number;
  now: () => number;
  baseUrl: () => string;
}

interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  expiresAt: number;
  interval: number;
  polls: number;
  state: 'pending' | 'approved' | 'denied';
  slowDownNext: number;
}

export class DeviceFlow {
  readonly #grants = new Map<string, DeviceGrant>();
  readonly #tokens = new Map<string, { expiresAt: number; refresh: string }>();
  readonly #refreshTokens = new Map<string, string>();

  constructor(readonly options: DeviceOptions) {}

  /** Whether a bearer secret is a live device access token. */
  accepts(secret: string): boolean {
    const token = this.#tokens.get(secret);
    return token !== undefined && token.expiresAt > this.options.now();
  }

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

  /** Expires every access token (to exercise refresh). */
  expireTokens(): void {
    for (const token of this.#tokens.values()) token.expiresAt = 0;
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

  deviceCode(res: ServerResponse, form: URLSearchParams): void {
    if (!form.get('client_id')) return sendJson(res, 400, { error: 'invalid_client', error_description: 'client_id is required' });
    const deviceCode = randomBytes(24).toString('base64url');
    const userCode = `${randomLetters(4)}-${randomLetters(4)}`;
    const { expiresIn, interval } = this.options;
    this.#grants.set(deviceCode, { deviceCode, userCode, expiresAt: this.options.now() + expiresIn * 1000, interval, polls: 0, state: 'pending', slowDownNext: 0 });
    const base = this.options.baseUrl();
    sendJson(res, 200, {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${base}/device`,
      verification_uri_complete: `${base}/device?user_code=${userCode}`,
      expires_in: expiresIn,
      interval,
    });
  }

  token(res: ServerResponse, form: URLSearchParams): void {
    const grantType = form.get('grant_type');
    if (grantType === 'refresh_token') {
      const access = this.#refreshTokens.get(form.get('refresh_token') ?? '');
      if (!access) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
      this.#tokens.delete(access);
      this.#refreshTokens.delete(form.get('refresh_token')!);
      return sendJson(res, 200, this.#issueToken());
    }
    if (grantType !== 'urn:ietf:params:oauth:grant-type:device_code') return sendJson(res, 400, { error: 'unsupported_grant_type' });
    const grant = this.#grants.get(form.get('device_code') ?? '');
    if (!grant) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'unknown device code' });
    grant.polls++;
    if (this.options.now() >= grant.expiresAt) return sendJson(res, 400, { error: 'expired_token' });
    if (grant.slowDownNext > 0) {
      grant.slowDownNext--;
      grant.interval += 5;
      return sendJson(res, 400, { error: 'slow_down' });
    }
    if (grant.state === 'pending' && this.options.autoApproveAfterPolls !== undefined && grant.polls >= this.options.autoApproveAfterPolls) grant.state = 'approved';
    if (grant.state === 'denied') return sendJson(res, 400, { error: 'access_denied' });
    if (grant.state === 'pending') return sendJson(res, 400, { error: 'authorization_pending' });
    this.#grants.delete(grant.deviceCode);
    sendJson(res, 200, this.#issueToken());
  }

  #issueToken(): unknown {
    const access = `sbx-dt-${randomBytes(18).toString('base64url')}`;
    const refresh = `sbx-rt-${randomBytes(18).toString('base64url')}`;
    this.#tokens.set(access, { expiresAt: this.options.now() + this.options.accessTokenLifetime * 1000, refresh });
    this.#refreshTokens.set(refresh, access);
    return { access_token: access, token_type: 'Bearer', expires_in: this.options.accessTokenLifetime, refresh_token: refresh };
  }

  page(res: ServerResponse, url: URL, form: URLSearchParams | undefined): void {
    const code = (form?.get('user_code') ?? url.searchParams.get('user_code') ?? '').toUpperCase();
    let note = '';
    if (form) note = (form.get('action') === 'deny' ? this.deny(code) : this.approve(code)) ? `<p>Done: ${form.get('action') === 'deny' ? 'denied' : 'approved'}.</p>` : '<p>Unknown or used code.</p>';
    const safe = code.replace(/[^A-Z-]/g, '');
    send(res, 200, `<!doctype html><title>Sandbox device login</title><h1>Sandbox device login</h1>${note}<form method="post"><input name="user_code" value="${safe}"><button name="action" value="approve">Approve</button><button name="action" value="deny">Deny</button></form>`, 'text/html');
  }
}

function randomLetters(count: number): string {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  return [...randomBytes(count)].map((b) => letters[b % letters.length]).join('');
}
