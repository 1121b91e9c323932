// The compatible family of the sandbox: subscription, usage and token-usage records as the
// third-party convention has them (JSON numbers; *_usd in yuan; total_usage in fen), in the
// shapes real gateways of that family send (../shared/spec/real-gateways.md): the token record
// wrapped with a success flag (`code: true` by default), optionally in raw quota units with no
// currency, the unlimited marker, or no token endpoint at all.
import { Decimal } from '../domain/money.js';
import { CATALOG, type SandboxAccount, type SandboxKey } from './seed.js';

/** How the token record is wrapped: `{"code": true|0, "message", "data"}`, `{"success": true, "data"}`, or bare. */
export type CompatWrap = 'code-true' | 'code-zero' | 'success' | 'none';
export const COMPAT_WRAPS: CompatWrap[] = ['code-true', 'code-zero', 'success', 'none'];

export interface CompatOptions {
  wrap: CompatWrap;
  /**
   * `stated`: the token record's amounts are credits (yuan) with `currency`, as the spec's
   * service sends them. `raw`: raw quota units with no `currency` (QUOTA_UNITS_PER_YUAN a yuan),
   * `model_limits` keyed by model name, and an unlimited key's subscription limits at the
   * 100000000 marker, as the open-source gateways of the family send them.
   */
  units: 'stated' | 'raw';
  /** The token endpoint exists (an older gateway of the family answers 404 there). */
  tokenEndpoint: boolean;
}

export const QUOTA_UNITS_PER_YUAN = 500_000;
/** What real gateways of the family put in every limit of an unlimited key's subscription. */
export const UNLIMITED_MARKER = '100000000';

export class CompatFamily {
  constructor(
    readonly options: CompatOptions,
    /** Spend of the calls that pass the filter (an account's calls, or a key's). */
    readonly spend: (account: SandboxAccount, keySecret?: string) => Decimal,
  ) {}

  /** Spend the compatible records report: the key's when it carries a total cost limit, the account's otherwise. */
  #reportedSpend(account: SandboxAccount, key: SandboxKey): Decimal {
    return key.totalCostLimit ? this.spend(account, key.secret) : this.spend(account);
  }

  /** soft_limit_usd is balance plus lifetime spend, whatever the key (the spec's definition); raw gateways send the marker for an unlimited key. */
  subscription(account: SandboxAccount, key: SandboxKey): string {
    const limit = this.options.units === 'raw' && key.unlimitedQuota ? UNLIMITED_MARKER : account.topUps.toFixed(8);
    return `{"object":"billing_subscription","has_payment_method":true,"soft_limit_usd":${limit},"hard_limit_usd":${limit},"system_hard_limit_usd":${limit},"access_until":0,"plan":{"title":"pay-as-you-go","id":"payg"}}`;
  }

  usage(account: SandboxAccount, key: SandboxKey): string {
    return `{"object":"list","total_usage":${this.#reportedSpend(account, key).mul(100).toFixed(6)}}`;
  }

  /** The token record, or undefined where the gateway has no token endpoint. */
  token(account: SandboxAccount, key: SandboxKey): string | undefined {
    if (!this.options.tokenEndpoint) return undefined;
    const used = this.#reportedSpend(account, key);
    const granted = key.totalCostLimit ? new Decimal(key.totalCostLimit) : account.topUps;
    const raw = this.options.units === 'raw';
    const amount = (yuan: Decimal) => (raw ? yuan.mul(QUOTA_UNITS_PER_YUAN).toFixed(0) : yuan.toFixed(8));
    const models = raw ? `{${CATALOG.filter((m) => m.groups.some((g) => key.groups.includes(g))).map((m) => `${JSON.stringify(m.name)}:true`).join(',')}}` : JSON.stringify(key.groups);
    const record =
      `{"object":"token_usage","name":${JSON.stringify(key.name)},"total_granted":${amount(granted)},"total_used":${amount(used)},"total_available":${amount(granted.minus(used))},` +
      `"unlimited_quota":${key.unlimitedQuota},"model_limits":${models},"model_limits_enabled":${key.groups.length < 4},"expires_at":${key.expiresAt}${raw ? '' : ',"currency":"CNY"'}}`;
    switch (this.options.wrap) {
      case 'code-true': return `{"code":true,"message":"ok","data":${record}}`;
      case 'code-zero': return `{"code":0,"message":"ok","data":${record}}`;
      case 'success': return `{"success":true,"message":"","data":${record}}`;
      case 'none': return record;
    }
  }
}
