// The compatible family of the sandbox: subscription, usage and token-usage records as the
// third-party convention has them (JSON numbers; *_usd in yuan; total_usage in fen).
import { Decimal } from '../domain/money.js';
import { type SandboxKey, TOP_UPS } from './seed.js';

export interface CompatOptions {
  /** Wrap the token-usage record as {"code", "message", "data": {...}}, as gateways of this family often do. */
  wrap: boolean;
}

export class CompatFamily {
  constructor(
    readonly options: CompatOptions,
    /** Spend of the calls that pass the filter (all the account's calls, or a key's). */
    readonly spend: (keySecret?: string) => Decimal,
  ) {}

  /** Spend the compatible records report: the key's when it carries a total cost limit, the account's otherwise. */
  #reportedSpend(key: SandboxKey): Decimal {
    return key.totalCostLimit ? this.spend(key.secret) : this.spend();
  }

  /** soft_limit_usd is balance plus lifetime spend, whatever the key (the spec's definition). */
  subscription(): string {
    const spend = this.spend();
    const balance = TOP_UPS.minus(spend);
    const soft = balance.plus(spend);
    return `{"object":"billing_subscription","has_payment_method":true,"soft_limit_usd":${soft.toFixed(8)},"hard_limit_usd":${soft.toFixed(8)},"system_hard_limit_usd":${soft.toFixed(8)},"access_until":0,"plan":{"title":"pay-as-you-go","id":"payg"}}`;
  }

  usage(key: SandboxKey): string {
    return `{"object":"list","total_usage":${this.#reportedSpend(key).mul(100).toFixed(6)}}`;
  }

  token(key: SandboxKey): string {
    const used = this.#reportedSpend(key);
    const granted = key.totalCostLimit ? new Decimal(key.totalCostLimit) : TOP_UPS;
    const record = `{"object":"token_usage","name":${JSON.stringify(key.name)},"total_granted":${granted.toFixed(8)},"total_used":${used.toFixed(8)},"total_available":${granted.minus(used).toFixed(8)},"unlimited_quota":${key.unlimitedQuota},"model_limits":${JSON.stringify(key.groups)},"expires_at":${key.expiresAt},"currency":"CNY"}`;
    return this.options.wrap ? `{"code":0,"message":"ok","data":${record}}` : record;
  }
}
