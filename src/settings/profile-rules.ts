// What a profile may hold, checked the same way wherever a value comes from: `tally config set`,
// `tally login`, and config.json read back (which anyone could have edited). A value that breaks
// a rule is a ConfigError naming the profile and the field (exit 2), never used as it is.
import { NOTIFY_KINDS } from '../domain/notify-kinds.js';
import { currencyCode } from '../domain/currency-code.js';
import { ConfigError, UsageError } from '../errors.js';
import { parseUtcOffset } from '../domain/offset.js';
import { looksLikeSecret } from '../domain/secrets.js';
import { wholeNumber } from '../flags/flag-values.js';
import { parseBaseUrl } from './base-url.js';
import { BUDGET_NAME, NAME_RULE, checkBudget, checkBudgetName } from '../domain/budget.js';
import type { ProfileRecord } from './store.js';

/** How long a fetched price catalog is used before it is asked again, unless the profile's pricing_ttl says otherwise (declared here: every run checks the profile, few read the catalog). */
export const DEFAULT_PRICING_TTL_SECONDS = 3600;

export type SettingKey = 'base_url' | 'pricing_ttl' | 'utc_offset' | 'device_code_url' | 'token_url' | 'client_id' | 'currency' | 'rate_source';

export interface SettingRule {
  description: string;
  /** The stored value for a given text, or a UsageError. */
  parse: (text: string, allowHttp: boolean) => string | number;
  /** What applies when nothing is stored. */
  fallback: (record: ProfileRecord | undefined, baseUrl: string | undefined) => string | undefined;
}

const urlValue = (what: string) => (text: string, allowHttp: boolean) => parseBaseUrl(text, allowHttp, what).href.replace(/\/$/, '');

export const SETTINGS: Record<SettingKey, SettingRule> = {
  base_url: { description: "the gateway's base URL", parse: urlValue('base_url'), fallback: () => undefined },
  pricing_ttl: {
    description: 'seconds a cached price catalog is used before it is fetched again',
    parse: (text) => wholeNumber(text, 'pricing_ttl', 0, 365 * 86_400),
    fallback: () => String(DEFAULT_PRICING_TTL_SECONDS),
  },
  utc_offset: {
    description: "the gateway's day grid and the zone of times (+HH:MM)",
    parse: (text) => {
      parseUtcOffset(text, 'utc_offset');
      return text;
    },
    fallback: () => undefined,
  },
  device_code_url: { description: 'the device login authorization endpoint', parse: urlValue('device_code_url'), fallback: (_r, base) => base && `${base}/oauth/device/code` },
  token_url: { description: 'the device login token endpoint', parse: urlValue('token_url'), fallback: (_r, base) => base && `${base}/oauth/token` },
  client_id: {
    description: 'the OAuth client id of the device login',
    parse: (text) => {
      if (!/^[\x21-\x7e]{1,200}$/.test(text)) throw new UsageError(`client_id "${text.slice(0, 40)}" must be 1 to 200 printable characters without spaces`);
      if (looksLikeSecret(text)) throw new UsageError('client_id looks like an API key: config never stores a secret; use `tally login` (or TALLY_API_KEY)');
      return text;
    },
    fallback: () => 'tally',
  },
  currency: {
    description: 'a display currency: amounts shown also in this ISO 4217 code, at a dated rate (the yuan stay)',
    parse: (text) => {
      const code = currencyCode(text);
      if (!code) throw new UsageError(`currency "${text.slice(0, 20)}" is not an ISO 4217 currency code (USD, EUR, JPY)`);
      return code;
    },
    fallback: () => undefined,
  },
  rate_source: {
    description: 'where the display currency\'s rate is asked, at most once a day (GET URL?from=CNY&to=CODE)',
    parse: (text, allowHttp) => urlValue('rate_source')(text, allowHttp),
    fallback: () => DEFAULT_RATE_SOURCE,
  },
};

/** The default rate source: the European Central Bank's reference rates, as the Frankfurter service serves them ({"base", "date", "rates"}; the date is the fixing's). */
export const DEFAULT_RATE_SOURCE = 'https://api.frankfurter.app/latest';

/** The longest credential tally accepts (keys and tokens are far shorter; a megabyte is a mistake). */
export const MAX_CREDENTIAL_LENGTH = 4096;

/** A key or token as stored: printable ASCII without spaces, of a sane length; the reason otherwise. */
export function credentialProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'is not a non-empty string';
  if (value.length > MAX_CREDENTIAL_LENGTH) return `is longer than ${MAX_CREDENTIAL_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(value)) return 'contains a space, line break or other non-printable character';
  return undefined;
}

/**
 * A profile read back from config.json, checked as `config set` and `login` check what they
 * store: throws a ConfigError (exit 2) that names the profile, the field and what to do.
 */
export function checkStoredProfile(name: string, record: unknown, path: string): ProfileRecord {
  const fail = (field: string, problem: string): never => {
    throw new ConfigError(`profile "${name}" in ${path}: ${field} ${problem}`, {
      hint: `Fix it with \`tally --profile ${name} config set\` (or \`tally --profile ${name} login\` for a credential), or edit ${path}.`,
    });
  };
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return fail('the profile', 'is not an object');
  const r = record as Record<string, unknown>;
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const value = r[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' && !(key === 'pricing_ttl' && typeof value === 'number')) fail(key, `is ${describe(value)}, not a setting`);
    try {
      // Stored values were checked with the flags of their day; plain http:// is kept to loopback here.
      SETTINGS[key].parse(String(value), false);
    } catch (error) {
      if (error instanceof UsageError) fail(key, `is not valid: ${error.message}`);
      throw error;
    }
  }
  if (r.api_key !== undefined) {
    const problem = credentialProblem(r.api_key);
    if (problem) fail('api_key', problem);
  }
  if (r.device_token !== undefined) {
    const token = r.device_token as Record<string, unknown> | null;
    if (typeof token !== 'object' || token === null || Array.isArray(token)) fail('device_token', 'is not an object');
    const problem = credentialProblem(token!.access_token);
    if (problem) fail('device_token.access_token', problem);
    if (token!.refresh_token !== undefined && credentialProblem(token!.refresh_token)) fail('device_token.refresh_token', credentialProblem(token!.refresh_token)!);
    if (token!.expires_at !== undefined && (typeof token!.expires_at !== 'string' || !Number.isFinite(Date.parse(token!.expires_at)))) fail('device_token.expires_at', 'is not a date');
  }
  if (r.budgets !== undefined) {
    if (typeof r.budgets !== 'object' || r.budgets === null || Array.isArray(r.budgets)) fail('budgets', 'is not an object');
    for (const [budget, value] of Object.entries(r.budgets as Record<string, unknown>)) {
      try {
        checkBudgetName(budget);
        checkBudget(budget, value);
      } catch (error) {
        if (error instanceof UsageError) fail(`budgets.${budget}`, `is not valid: ${error.message}`);
        throw error;
      }
    }
  }
  if (r.notify !== undefined) {
    if (typeof r.notify !== 'object' || r.notify === null || Array.isArray(r.notify)) fail('notify', 'is not an object');
    for (const [destination, value] of Object.entries(r.notify as Record<string, unknown>)) {
      const problem = notifyProblem(destination, value);
      if (problem) fail(`notify.${destination}`, problem);
    }
  }
  return record as ProfileRecord;
}

/** What is wrong with a stored alert destination, if anything (its URL is never part of the answer). */
export function notifyProblem(name: string, value: unknown): string | undefined {
  if (!BUDGET_NAME.test(name)) return `has a name that is not ${NAME_RULE}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object';
  const v = value as Record<string, unknown>;
  if (typeof v.kind !== 'string' || !(NOTIFY_KINDS as readonly string[]).includes(v.kind)) return `has a kind that is not ${NOTIFY_KINDS.join(', ')}`;
  if (typeof v.url !== 'string' || v.url.length > 2048) return 'has no URL';
  if (v.secret !== undefined && (typeof v.secret !== 'string' || v.secret.length === 0 || v.secret.length > 1024)) return 'has a secret that is not text';
  try {
    const url = new URL(v.url);
    const schemes = v.kind === 'email' ? ['smtp:', 'smtps:'] : ['https:', 'http:'];
    if (!schemes.includes(url.protocol)) return `has a URL that is not ${v.kind === 'email' ? 'smtp(s)' : 'http(s)'}`;
  } catch {
    return 'has a URL that is not a URL';
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
